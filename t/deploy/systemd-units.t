# examples/systemd/kamado.service and kamado.socket say what systemd
# needs: ExecStart parses as kamado's options (the app, a pid file in the
# RuntimeDirectory), Type=notify (kamado speaks it, t/deploy/sd-notify.t),
# reload by HUP to the main pid, TERM to the supervisor alone with time
# for --graceful-timeout, the socket unit names the service.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test ();
use Kamado::Options;
use Kamado::Test::Systemd qw(unit);

my $service = unit('examples/systemd/kamado.service');
my $socket = unit('examples/systemd/kamado.socket');

my @exec = split ' ', $service->{Service}{ExecStart}[0];
like shift @exec, qr{/kamado\z}, 'ExecStart runs kamado';
my $opt = eval { Kamado::Options->parse_argv(@exec) };
ok $opt, 'its arguments are valid kamado options' or diag $@;
is $opt->{app}, "$service->{Service}{WorkingDirectory}[0]/app.psgi", 'the app is in the WorkingDirectory';
is $opt->{pid_file}, "/run/$service->{Service}{RuntimeDirectory}[0]/kamado.pid", 'the pid file is in the RuntimeDirectory (writable by User=)';
ok !$opt->{listen} && !defined $opt->{port}, 'no --listen: the sockets come from kamado.socket';
cmp_ok $service->{Service}{TimeoutStopSec}[0], '>', $opt->{graceful_timeout}, 'TimeoutStopSec leaves time for --graceful-timeout';

is $service->{Service}{Type}[0], 'notify', 'Type=notify';
is $service->{Service}{ExecReload}[0], '/bin/kill -HUP $MAINPID', 'reload: HUP to the supervisor';
is $service->{Service}{KillSignal}[0], 'SIGTERM', 'stop: TERM';
is $service->{Service}{KillMode}[0], 'mixed', 'to the supervisor alone (it drains its workers)';
ok !$service->{Service}{PIDFile}, 'no PIDFile= (systemd knows the main pid)';
ok grep({ $_ eq 'kamado.socket' } map { split ' ' } $service->{Unit}{Requires}->@*), 'requires kamado.socket';

is $socket->{Socket}{Service}[0], 'kamado.service', 'the socket unit starts kamado.service';
my @listen = $socket->{Socket}{ListenStream}->@*;
ok +(grep { m{\A/} } @listen) && (grep { /:\d+\z/ } @listen), 'a unix socket and a TCP port';
done_testing;
