# The status process is started again when it dies, and told every live
# generation anew: killed, it comes back (a new pid) and shows the same
# workers; the app is not disturbed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_json);

my $server = status_server(workers => 2, app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');

sub cmdline { open my $fh, '<', "/proc/$_[0]/cmdline" or return ''; local $/; (<$fh> // '') =~ tr/\0/ /r }
sub status_pid { (grep { cmdline($_) =~ /^kamado status/ } $server->generations)[0] }

my $first = status_pid();
ok $first, 'a status process';
my @workers = sort { $a <=> $b } $server->workers;
kill KILL => $first;
ok eventually(sub { my $p = status_pid(); $p && $p != $first }), 'started again';
like $server->log, qr/the status process exited with signal 9; starting another/, 'logged';
my $s;
ok eventually(sub { $s = eval { status_json($server) }; $s && @{ $s->{workers} } == 2 }), 'answering again';
is_deeply [sort { $a <=> $b } map { $_->{pid} } $s->{workers}->@*], \@workers, 'the same workers';
is $s->{generations}[0]{state}, 'serving', 'the generation serving';
is read_response($server->send_get('/'))->{status}, 200, 'the app answers';
is_deeply [sort { $a <=> $b } $server->workers], \@workers, 'its workers untouched';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
