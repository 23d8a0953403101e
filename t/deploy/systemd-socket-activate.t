# examples/systemd/kamado.socket + kamado.service run as systemd would run
# them, by systemd-socket-activate (the socket passing of systemd, from
# Debian's systemd package): it binds the unit's ListenStream sockets (a
# unix socket and a TCP port, moved into a temporary directory), starts
# the unit's ExecStart (paths moved too) at the first connection with
# LISTEN_FDS, and kamado serves on both; it says READY=1 on
# NOTIFY_SOCKET, writes its pid file, reloads on the unit's ExecReload,
# and stops on TERM leaving systemd's socket in place.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Cwd ();
use File::Temp ();
use IO::Socket::UNIX;
use POSIX ();
use Socket qw(SOCK_DGRAM);
use Kamado::Test qw(read_response eventually);
use Kamado::Test::Plackup qw(free_port);
use Kamado::Test::Systemd qw(unit);

my $activate = '/usr/bin/systemd-socket-activate';
ok -x $activate, "$activate is installed (Debian's systemd package; dev/deps installs it)" or BAIL_OUT('no systemd-socket-activate');

my $root = Cwd::getcwd();
my $dir = File::Temp->newdir;
mkdir "$dir/lib" or die $!;
open my $fh, '>', "$dir/app.psgi" or die $!;
print $fh q{sub { [200, ["Content-Type" => "text/plain"], ["$ENV{PLACK_ENV} $$"]] }}, "\n";
close $fh;

my $service = unit('examples/systemd/kamado.service');
my $socket = unit('examples/systemd/kamado.socket');
my $port = free_port();
my @listen = map { m{\A/} ? "$dir/kamado.sock" : s/:\d+\z/:$port/r } $socket->{Socket}{ListenStream}->@*;
my $move = sub { $_[0] =~ s{\A/srv/myapp\b}{$dir}r =~ s{\A/run/kamado\b}{$dir}r };
my ($bin, @args) = map { $move->($_) } split ' ', $service->{Service}{ExecStart}[0];
my ($env) = $service->{Service}{Environment}->@*;

my $notify = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => "$dir/notify") or die $!;
my $log = "$dir/stderr";
my $pid = fork // die;
if (!$pid) {
    chdir $move->($service->{Service}{WorkingDirectory}[0]) or POSIX::_exit(111);
    open STDOUT, '>', $log or POSIX::_exit(111);
    open STDERR, '>&', \*STDOUT or POSIX::_exit(111);
    exec $activate, (map { ('-l', $_) } @listen), '-E', $env, '-E', "NOTIFY_SOCKET=$dir/notify",
        $^X, "-I$root/blib/lib", "-I$root/blib/arch", "$root/script/kamado", @args
        or POSIX::_exit(111);
}
END { if ($pid && kill 0, $pid) { kill KILL => $pid; waitpid $pid, 0 } }
sub log_text { open my $fh, '<', $log or return ''; local $/; <$fh> }
ok eventually(sub { my @on = log_text() =~ /Listening on/g; @on == 2 }),
    'systemd-socket-activate listens on both sockets' or diag log_text();

# the first connection starts kamado; it waits in the backlog meanwhile
my $tcp = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port) or die $!;
syswrite $tcp, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $res = read_response($tcp, timeout => 20);
like $res && $res->{body}, qr/\Adeployment \d+\z/, 'TCP: served, with the unit\'s Environment=' or diag log_text();
vec(my $rin = '', fileno $notify, 1) = 1;
select(my $rout = $rin, undef, undef, 5);
recv($notify, my $msg, 4096, 0);
like $msg, qr/^READY=1$/m, 'READY=1 on NOTIFY_SOCKET';

my $unix = IO::Socket::UNIX->new(Peer => "$dir/kamado.sock") or die $!;
syswrite $unix, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
$res = read_response($unix);
is $res && $res->{status}, 200, 'the unix socket: served';
like log_text(), qr/accepting connections at .*kamado\.sock/, 'kamado took both sockets';

open $fh, '<', "$dir/kamado.pid" or die "no pid file: $!";
is scalar <$fh>, "$pid\n", 'the pid file holds the main pid (systemd-socket-activate execs kamado in place)';

my $reload = $service->{Service}{ExecReload}[0] =~ s/\$MAINPID/$pid/r;
is system($reload), 0, "ExecReload: $reload";
ok eventually(sub { log_text() =~ /generation 2 serves/ }), 'a new generation serves';

kill TERM => $pid;
ok eventually(sub { waitpid($pid, POSIX::WNOHANG()) == $pid }), 'TERM: kamado exits';
is $?, 0, 'with status 0';
ok !-e "$dir/kamado.pid", 'the pid file is removed';
ok -S "$dir/kamado.sock", "systemd's socket is left in place";
done_testing;
