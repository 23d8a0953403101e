# A CGI script sees its request's id as UNIQUE_ID (mod_unique_id's name),
# in every mode: the id the server's own lines about that request carry.
# What the script writes to STDERR reaches the log, each line with the
# script's path and that id before it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::Log qw(log_lines);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/malformed header from script\. Bad header: not a header/);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'id.cgi', <<'CGI');
#!/usr/bin/perl
print STDERR "id.cgi says $ENV{UNIQUE_ID}\n";
print "Content-Type: text/plain\n\n$ENV{UNIQUE_ID}";
CGI
put_script($root, 'bad.cgi', <<'CGI');
#!/usr/bin/perl
print STDERR "bad.cgi says $ENV{UNIQUE_ID}\n";
print "not a header\n\n";
CGI

for my $mode (qw(fork exec registry perlrun)) {
    subtest $mode => sub {
        my $server = start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
        my @ids = map { get_script($server, 'id.cgi')->{body} } 1 .. 10;
        is scalar(grep { /\A[0-9a-f]{13}-\d+-\d+\z/ } @ids), 10, 'each run has a UNIQUE_ID: time, pid, count';
        my %seen;
        is scalar(grep { !$seen{$_}++ } @ids), 10, 'all different';
        my ($worker) = grep { my $w = $_; grep { /-$w-/ } @ids } $server->workers;
        ok $worker, "with the pid of a worker";
        wait_until { (() = $server->log =~ /^\Q$root\E\/id\.cgi \[\S+\]: id\.cgi says /mg) == 10 }
        'its STDERR reaches the log';
        my %said = $server->log =~ /^\Q$root\E\/id\.cgi \[(\S+)\]: id\.cgi says (\S+)$/mg;
        is_deeply [sort values %said], [sort @ids], 'as the script wrote it, after its path';
        is scalar(grep { $said{$_} ne $_ } keys %said), 0, 'and the id of its request';

        is get_script($server, 'bad.cgi')->{status}, 500, 'a malformed head: 500';
        wait_until { $server->log =~ /malformed header/ } 'logged';
        my ($said) = $server->log =~ /^\Q$root\E\/bad\.cgi \[\S+\]: bad\.cgi says (\S+)$/m;
        my ($line) = grep { $_->{message} =~ /bad\.cgi: malformed header from script/ } log_lines($server->log);
        is $line && "$line->{level} $line->{role}", 'error worker', 'an error from the worker';
        ok $said && $line && $line->{id} eq $said, 'with the id the script saw';
        is $server->stop, 0, 'TERM: exit 0';
    };
}
done_testing;
