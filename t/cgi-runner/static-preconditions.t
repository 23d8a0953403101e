# A static file of a --cgi-docroot answers If-Match and
# If-Unmodified-Since as nginx and Apache do (RFC 9110 13.1.1, 13.1.4,
# 13.2.2): a 412 when If-Match names no tag of the file (compared
# strongly: a weak tag never matches; * matches) or, without If-Match,
# when If-Unmodified-Since is before the file's mtime (a date that
# cannot be read is ignored); they come before If-None-Match and Range.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use HTTP::Date ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);

my $root = File::Temp::tempdir(CLEANUP => 1);
open my $fh, '>', "$root/page.html" or die;
print $fh "<p>page</p>\n";
close $fh;
my $mtime = time - 3600;
utime $mtime, $mtime, "$root/page.html" or die;

my $server = start_server(args => ['--cgi-docroot', $root], no_app => 1);
sub req {
    my ($method, %h) = @_;
    my $head = join '', map { "$_: $h{$_}\r\n" } sort keys %h;
    my $raw = raw_request($server, "$method /page.html HTTP/1.1\r\nHost: x\r\n${head}Connection: close\r\n\r\n");
    return parse_response($raw, no_body => $method eq "HEAD") // { status => 0, body => '', headers => {} };
}
my $plain = req('GET');
is $plain->{status}, 200, 'the file: 200';
my $etag = $plain->{headers}{etag};
like $etag, qr/\A"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"\z/, 'with an ETag';
my $before = HTTP::Date::time2str($mtime - 60);
my $at = HTTP::Date::time2str($mtime);

for (
    ['If-Match the tag',             200, 'If-Match' => $etag],
    ['If-Match *',                   200, 'If-Match' => '*'],
    ['If-Match a list with the tag', 200, 'If-Match' => qq{"x", $etag}],
    ['If-Match another tag',         412, 'If-Match' => '"other"'],
    ['If-Match the tag, weak',       412, 'If-Match' => "W/$etag"],
    ['If-Match another, HEAD',       412, 'If-Match' => '"other"', method => 'HEAD'],
    ['If-Unmodified-Since before the mtime', 412, 'If-Unmodified-Since' => $before],
    ['If-Unmodified-Since at the mtime',     200, 'If-Unmodified-Since' => $at],
    ['If-Unmodified-Since not a date',       200, 'If-Unmodified-Since' => 'yesterday-ish'],
    ['If-Match the tag wins over an old If-Unmodified-Since', 200, 'If-Match' => $etag, 'If-Unmodified-Since' => $before],
    ['If-Match another, before If-None-Match', 412, 'If-Match' => '"other"', 'If-None-Match' => $etag],
    ['If-Match another, before Range',         412, 'If-Match' => '"other"', 'Range' => 'bytes=0-1'],
    ['If-Match the tag, then Range',           206, 'If-Match' => $etag, 'Range' => 'bytes=0-1'],
    ['If-Match the tag, then If-None-Match',   304, 'If-Match' => $etag, 'If-None-Match' => $etag],
) {
    my ($name, $want, %h) = @$_;
    my $method = delete $h{method} // 'GET';
    my $r = req($method, %h);
    is $r->{status}, $want, "$name: $want";
    is $r->{body}, '', "$name: no body" if $want == 412 && $method eq 'HEAD';
    unlike $r->{body}, qr/page/, "$name: not the file" if $want == 412;
}
is $server->stop, 0, 'the server stops cleanly';
done_testing;
