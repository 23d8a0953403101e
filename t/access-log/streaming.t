# Streamed responses are logged with the body bytes actually sent (not
# the chunked framing): a delayed response with a writer (chunked), a
# body object with getline, a real file (sent with sendfile), an arrayref
# of several pieces with a Content-Length that cuts it short, and a
# HEAD of a streamed response (no body: -).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/body longer than its Content-Length: cut/);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $file = "$dir/file.txt";
open my $fh, '>', $file or die $!;
print $fh 'f' x 100_000;
close $fh;
my $server = start_server(args => ['--access-log', $log], app => <<"APP");
package Lines { sub new { my \$n = 0; bless \\\$n } sub getline { my \$s = shift; \$\$s++ < 10 ? "line \$\$s\\n" : undef } sub close {} }
sub {
    my (\$env) = \@_;
    my \$p = \$env->{PATH_INFO};
    if (\$p eq '/writer') {
        return sub {
            my \$w = \$_[0]->([200, ['Content-Type' => 'text/plain']]);
            \$w->write('x' x \$_) for 1 .. 100;
            \$w->close;
        };
    }
    return [200, ['Content-Type' => 'text/plain'], Lines->new] if \$p eq '/getline';
    if (\$p eq '/file') { open my \$f, '<', '$file' or die; return [200, ['Content-Type' => 'text/plain'], \$f] }
    return [200, ['Content-Length' => 10], ['12345', '67890', 'abcde']] if \$p eq '/cut';
    return [404, [], ['none']];
}
APP

my %want = (writer => 5050, getline => length(join '', map { "line $_\n" } 1 .. 10), file => 100_000, cut => 10);
my @order = qw(writer getline file cut);
for my $path (@order) {
    my $res = read_response($server->send_get("/$path"));
    is $res && length($res->{body}), $want{$path}, "/$path: $want{$path} bytes of body";
}
my $c = $server->connect;
syswrite $c, "HEAD /writer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $res = read_response($c, head => 1);
is $res && $res->{status}, 200, 'HEAD of the streamed response';

my @lines = wait_lines($log, @order + 1);
is scalar(@lines), @order + 1, 'one line each' or diag @lines;
for my $i (0 .. $#order) {
    my $f = parse_combined($lines[$i] // '');
    is $f && $f->{request}, "GET /$order[$i] HTTP/1.1", "$order[$i]: the request";
    is $f && $f->{bytes}, $want{ $order[$i] }, "$order[$i]: %b is the body bytes sent, $want{$order[$i]}";
}
my $f = parse_combined($lines[-1] // '');
is $f && "$f->{request} $f->{status} $f->{bytes}", 'HEAD /writer HTTP/1.1 200 -', 'the HEAD: no body bytes';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
