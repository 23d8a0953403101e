# A handle the script's code keeps itself (a module's file-scoped
# variable, which outlives the request in the registry mode) and uses
# without calling DBI->connect again is still reset after each request
# it was used in: an uncommitted insert is rolled back, on the same
# connection.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(raw_request);
use Kamado::Test::HTTP ();
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql databases);

sub kept {
    my ($server, $query) = @_;
    my $raw = raw_request($server, "GET /cgi-bin/kept.cgi?$query HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 30);
    my $res = Kamado::Test::HTTP::parse_response($raw) // { body => '' };
    my ($id, $count) = $res->{body} =~ /\Aid=(\d+) pid=\d+\n(\d+)\n\z/;
    return [$id, $count];
}

for my $case (databases()) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $db = $start->();
        my $server = serve($db, mode => 'registry');
        is sql($server, {}, 'CREATE TABLE t (n INT)')->{status}, 200, 'a table';
        my $first = kept($server, 'x=1');
        is $first->[1], 0, 'the module connects' or diag $server->log;
        my $left = kept($server, 'leave=1');
        is_deeply $left, [$first->[0], 1], 'a request inserts without commit, on the module\'s handle';
        is_deeply kept($server, 'x=2'), [$first->[0], 0], 'the next request, on the same handle, does not see it';
        $server->stop;
    };
}

done_testing;
