# systemd's Type=notify protocol over a real unix datagram socket
# (NOTIFY_SOCKET, as systemd passes it): READY=1 once kamado serves,
# RELOADING=1 then READY=1 around a HUP, STOPPING=1 on TERM; the app does
# not see NOTIFY_SOCKET. The abstract namespace (@name) works too.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use IO::Socket::UNIX;
use Socket qw(SOCK_DGRAM);
use Kamado::Test qw(start_server read_response wait_until);

my $dir = File::Temp->newdir;
my $app = 'sub { [200, ["Content-Type" => "text/plain"], [$ENV{NOTIFY_SOCKET} // "none"]] }';

# the datagrams received within $timeout seconds, up to one saying $want
sub messages_until {
    my ($sock, $want, $timeout) = @_;
    my @got;
    my $deadline = time + ($timeout // 20);
    while (time < $deadline) {
        vec(my $rin = '', fileno $sock, 1) = 1;
        select($rin, undef, undef, 0.2) or next;
        recv($sock, my $msg, 4096, 0) // next;
        push @got, $msg;
        last if $msg =~ $want;
    }
    return join '|', @got;
}

my $notify = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => "$dir/notify") or die $!;
my $server = do {
    local $ENV{NOTIFY_SOCKET} = "$dir/notify";
    start_server(app => $app);
};
like messages_until($notify, qr/READY=1/), qr/\AREADY=1\nSTATUS=serving\n\z/, 'READY=1 once it serves';
is read_response($server->send_get('/'))->{body}, 'none', 'the app does not see NOTIFY_SOCKET';

kill HUP => $server->pid;
my $got = messages_until($notify, qr/READY=1/);
like $got, qr/\ARELOADING=1\n.*\|READY=1\nSTATUS=generation 2 serves\n\z/s, 'HUP: RELOADING=1, then READY=1 once generation 2 serves';

is $server->stop, 0, 'TERM: exit 0';
like messages_until($notify, qr/STOPPING=1/, 5), qr/STOPPING=1/, 'STOPPING=1';

# @name: the abstract namespace, as systemd may pass it
my $name = "kamado-test-$$";
my $abstract = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => "\0$name") or die $!;
$server = do {
    local $ENV{NOTIFY_SOCKET} = "\@$name";
    start_server(app => $app);
};
like messages_until($abstract, qr/READY=1/), qr/READY=1/, 'READY=1 on an abstract socket';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
