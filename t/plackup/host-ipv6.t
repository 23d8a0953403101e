# plackup -s Kamado --host ::1 --port N: plackup joins them as "::1:N";
# Kamado reads that as [::1]:N.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup);

my $probe = IO::Socket::IP->new(LocalHost => '::1', LocalPort => 0, Listen => 1)
    or plan skip_all => "no IPv6 loopback here: $@";
my $port = $probe->sockport;
close $probe;
my $server = start_plackup(port => $port, args => ['--host', '::1', '--port', $port],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$_[0]{SERVER_NAME}"]] }');
my $c = IO::Socket::IP->new(PeerHost => '::1', PeerPort => $port) or die "connect: $@";
print $c "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $res = read_response($c);
is $res && $res->{status}, 200, 'answers on [::1]';
is $res && $res->{body}, '::1', 'SERVER_NAME';
like $server->log, qr/accepting connections at \[::1\]:$port with/, 'one listener';
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;
