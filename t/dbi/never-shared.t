# A kept handle is never used by two processes at once, shown by the
# server's own connection ids: with two workers serving requests that
# overlap, every connection id is seen in one worker only; a script that
# forks gets, in the child, a connection of its own, and the child's
# exit does not close its parent's (the parent and the next request go
# on using it).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql databases);

for my $case (databases()) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $db = $start->();
        my $server = serve($db, mode => 'registry', workers => 2);
        # (a query that takes a moment, so that requests overlap)
        my $sleep = ref($db) =~ /Pg/ ? 'SELECT pg_sleep(0.05)' : 'SELECT SLEEP(0.05)';
        (my $path = "/cgi-bin/sql.cgi?q=$sleep") =~ s/ /%20/g;
        my (%pids_of, %ids_of);
        for my $round (1 .. 8) {
            my @c = map { $server->connect } 1 .. 4;
            syswrite $_, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" for @c;
            for my $c (@c) {
                my $res = read_response($c, timeout => 30);
                my ($id, $pid) = ($res && $res->{body} // '') =~ /\Aid=(\d+) pid=(\d+)/ or next;
                $pids_of{$id}{$pid} = 1;
                $ids_of{$pid}{$id} = 1;
            }
        }
        is scalar(keys %ids_of), 2, 'both workers served';
        is_deeply [grep { keys $pids_of{$_}->%* > 1 } keys %pids_of], [], 'no connection id was seen in two workers';
        is_deeply [grep { keys $ids_of{$_}->%* > 1 } keys %ids_of], [], 'each worker kept its one connection';

        my $r = sql($server, { fork => 1 }, 'SELECT 1');
        my ($child) = $r->{body} =~ /^child=(\d+)$/m;
        my ($after) = $r->{body} =~ /^after-child=(\d+)$/m;
        ok $child && $child != $r->{id}, 'a child forked by the script connects on a connection of its own'
            or diag $r->{body}, $server->log;
        is $after, $r->{id}, "the parent's connection still works after the child exited";
        my $next = sql($server, {}, 'SELECT 1');
        is $next->{status}, 200, 'and the next request succeeds';
        ok $ids_of{ $next->{pid} }{ $next->{id} }, 'on the connection its worker had';
        unlike $server->log, qr/found dead|could not be reset/, 'no handle had to be replaced';
    };
}

done_testing;
