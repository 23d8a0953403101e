# A body that is an object with getline (IO::Handle-like) is sent as it
# is produced, a getline at a time (chunked: its length is not known),
# whatever its size: past --write-buffer what the client has not taken is
# held in a temporary file for the event loop. Every byte arrives in
# order, close() is called on each body, and the connection goes on.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(slurp);

my $dir = tempdir(CLEANUP => 1);
local $ENV{KT_DIR} = $dir;
my $server = start_server(args => ['--write-buffer', 65536], app => <<'APP');
package Pieces {
    # $n pieces of 1000 bytes, each different
    sub new { my ($class, $n) = @_; bless { n => $n, i => 0 }, $class }
    sub getline { my $s = shift; $s->{i} < $s->{n} ? sprintf('%999d', $s->{i}++) . "\n" : undef }
    sub close { open my $fh, '>>', "$ENV{KT_DIR}/closed" or die; print $fh "$_[0]{n}\n"; close $fh }
}
sub {
    my ($n) = $_[0]{PATH_INFO} =~ m{^/(\d+)$} or return [404, [], ['no']];
    [200, ['Content-Type' => 'text/plain'], Pieces->new($n)];
}
APP

sub expected { join '', map { sprintf('%999d', $_) . "\n" } 0 .. $_[0] - 1 }

my $c = $server->connect;
my $buf = '';
for my $case ([10, 'in memory'], [300, 'past --write-buffer'], [2000, 'past 8 times that']) {
    my ($n, $what) = @$case;
    syswrite $c, "GET /$n HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, buffer => \$buf, timeout => 20);
    is $res && $res->{status}, 200, "$n KB, $what: 200";
    is $res->{headers}{'transfer-encoding'}, 'chunked', 'chunked';
    ok md5_hex($res->{body}) eq md5_hex(expected($n)), 'every byte, in order';
}
is $buf, '', 'nothing else';
is slurp("$dir/closed"), "10\n300\n2000\n", 'close() was called on each body';
done_testing;
