# --error-log syslog: kamado's lines go to syslog, facility daemon (or
# syslog:FACILITY), each with its level as the priority and the pid of
# the process that wrote it; STDERR gets only the app's own lines. The
# syslog socket is a real unix datagram socket of the test's, which
# Sys::Syslog is pointed at by setlogsock (Kamado::Test::SyslogSocket).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Cwd ();
use File::Temp ();
use IO::Socket::UNIX;
use Socket qw(SOCK_DGRAM);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $root = Cwd::getcwd();
my $dir = File::Temp->newdir;
my %FACILITY = (daemon => 3, local3 => 19);
my %SEVERITY = (error => 3, warn => 4, notice => 5, info => 6, debug => 7);

for my $facility ('daemon', 'local3') {
    subtest $facility => sub {
        my $path = "$dir/log-$facility";
        my $sock = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $path) or die "Can't bind $path: $!";
        my $spec = $facility eq 'daemon' ? 'syslog' : "syslog:$facility";
        my $server = start_server(workers => 2, no_wait => 1,
            command => ["-I$root/t/lib", "-MKamado::Test::SyslogSocket=$path", "$root/script/kamado"],
            args => ['--error-log', $spec], app => <<'APP');
sub {
    my $env = shift;
    warn "the app's own line\n";
    die "boom\n" if $env->{PATH_INFO} eq '/die';
    [200, ['Content-Type' => 'text/plain'], [$env->{'kamado.request_id'}]];
}
APP
        my @got;
        # the messages that came within $timeout s, until one matches $re
        my $until = sub {
            my ($re, $timeout) = @_;
            my $deadline = Time::HiRes::time() + ($timeout // 20);
            while ((my $left = $deadline - Time::HiRes::time()) > 0) {
                vec(my $rin = '', fileno $sock, 1) = 1;
                select($rin, undef, undef, $left) or last;
                defined recv($sock, my $msg, 65536, 0) or last;
                $msg =~ s/[\0\n]+\z//;
                my ($pri, $pid, $level, $role, $id, $text)
                    = $msg =~ /\A<(\d+)>.*?kamado\[(\d+)\]: \[(\w+)\] (\w+)(?: \[([^\]]+)\])?: (.*)\z/s
                    or do { push @got, { raw => $msg }; next };
                push @got, { pri => $pri, pid => $pid, level => $level, role => $role, id => $id, text => $text };
                return $got[-1] if $text =~ $re;
            }
            return undef;
        };
        my $ready = $until->(qr/^accepting connections/);
        ok $ready, 'the ready line arrives' or diag explain \@got, $server->log;
        # (a warning when it runs as root: it says so on that line)
        my $level = $> == 0 ? 'warn' : 'notice';
        is $ready && $ready->{pri}, $FACILITY{$facility} * 8 + $SEVERITY{$level}, "$facility.$level";
        is $ready && "$ready->{role} $ready->{pid}", 'supervisor ' . $server->pid, 'from the supervisor, with its pid';

        my $res = read_response($server->send_get('/'));
        is $res && $res->{status}, 200, 'it serves';
        my $id = $res->{body};
        $res = read_response($server->send_get('/die'));
        is $res && $res->{status}, 500, 'an app that dies: 500';
        my $died = $until->(qr/app died: boom$/);
        ok $died, 'its line arrives';
        is $died && $died->{pri}, $FACILITY{$facility} * 8 + $SEVERITY{error}, "$facility.err";
        is $died && $died->{role}, 'worker', 'from a worker';
        ok $died && (grep { $_ == $died->{pid} } $server->workers), 'with its pid';
        like $died && $died->{id}, qr/\A[0-9a-f]{13}-$died->{pid}-\d+\z/, 'and the request id';
        isnt $died && $died->{id}, $id, 'not the one of the request before';
        is_deeply [grep { $_->{raw} } @got], [], 'every message is a kamado line';

        my @stderr = split /\n/, $server->log;
        is_deeply \@stderr, ["the app's own line", "the app's own line"], "STDERR has the app's lines only";
        is $server->stop, 0, 'TERM: exit 0';
    };
}
done_testing;
