# A script's Last-Modified, in every mode, as Apache's mod_cgi sends it
# (util_script.c: apr_date_parse_http, then ap_update_mtime and
# ap_set_last_modified): a date in any form APR reads (RFC 1123 with any
# zone, RFC 850, asctime) goes out as RFC 1123 "..., DD Mon YYYY HH:MM:SS
# GMT", the zone ignored; one APR cannot read is dropped; a date in the
# future becomes the time of the response (a Last-Modified is never
# later than now); several lines give one header with the latest date.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::Local qw(timegm);
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my %script = (
    asctime  => ['Sun Nov  6 08:49:37 1994'],
    trailing => ['Tue, 15 Sep 2020 12:26:40 '],
    nozone   => ['Tue, 15 Sep 2020 12:26:40'],
    twodigit => ['Tue, 15 Sep 20 12:26:40 GMT'],
    rfc850   => ['Sunday, 06-Nov-94 08:49:37 GMT'],
    plus0000 => ['Tue, 15 Sep 2020 12:26:40 +0000'],
    offset   => ['Tue, 15 Sep 2020 12:26:40 +0200'],
    rfc1123  => ['Sun, 06 Nov 1994 08:49:37 GMT'],
    garbage  => ['yesterday, around noon'],
    future   => ['Fri, 01 Jan 2100 00:00:00 GMT'],
    several  => ['Sun, 06 Nov 1994 08:49:37 GMT', 'garbage', 'Tue, 15 Sep 2020 12:26:40 GMT', 'Wed, 01 Jan 2003 00:00:00 GMT'],
);
for my $name (sort keys %script) {
    my $lines = join '', map { "Last-Modified: $_\\n" } $script{$name}->@*;
    put_script($root, "$name.cgi", "print qq{Content-Type: text/plain\\n${lines}X-After: 1\\n\\n$name};\n");
}

my $server;
sub get {
    my ($path) = @_;
    my $raw = raw_request($server, "GET /cgi-bin/$path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '', headers => {}, header_list => [] };
}
# the Last-Modified lines of a response, and that the script's body came
sub modified {
    my ($name) = @_;
    my $r = get("$name.cgi");
    is $r->{body}, $name, "$name: the script's body";
    is $r->{headers}{'x-after'}, 1, "$name: the header after it kept";
    return map { $_->[1] } grep { lc $_->[0] eq 'last-modified' } $r->{header_list}->@*;
}
my %MON = (Jan => 0, Feb => 1, Mar => 2, Apr => 3, May => 4, Jun => 5, Jul => 6, Aug => 7, Sep => 8, Oct => 9,
    Nov => 10, Dec => 11);
for my $mode (qw(fork exec registry perlrun)) {
    note "mode $mode";
    $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    is_deeply [modified('asctime')], ['Sun, 06 Nov 1994 08:49:37 GMT'], 'asctime: in RFC 1123 form';
    is_deeply [modified('trailing')], ['Tue, 15 Sep 2020 12:26:40 GMT'], 'a blank after the time, no zone: read';
    is_deeply [modified('nozone')], [], 'nothing after the time: no Last-Modified (APR needs the blank)';
    is_deeply [modified('twodigit')], [], 'RFC 1123 with a two-digit year: none either';
    is_deeply [modified('rfc850')], ['Sun, 06 Nov 1994 08:49:37 GMT'], 'RFC 850: in RFC 1123 form, a four-digit year';
    is_deeply [modified('plus0000')], ['Tue, 15 Sep 2020 12:26:40 GMT'], '+0000: GMT';
    is_deeply [modified('offset')], ['Tue, 15 Sep 2020 12:26:40 GMT'], '+0200: ignored, as APR does';
    is_deeply [modified('rfc1123')], ['Sun, 06 Nov 1994 08:49:37 GMT'], 'RFC 1123 GMT: as it was';
    is_deeply [modified('garbage')], [], 'a date that cannot be read: no Last-Modified';
    is_deeply [modified('several')], ['Tue, 15 Sep 2020 12:26:40 GMT'], 'several: one, the latest';
    my $before = time;
    my @future = modified('future');
    my $after = time;
    is scalar @future, 1, 'a future date: one Last-Modified';
    my ($d, $mon, $y, $h, $m, $s) = ($future[0] // '') =~ /\A\w{3}, (\d\d) (\w{3}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT\z/;
    my $t = defined $d ? timegm($s, $m, $h, $d, $MON{$mon}, $y) : -1;
    ok $t >= $before && $t <= $after, "a future date: the time of the response ($future[0])";
    is $server->stop, 0, 'the server stops cleanly';
}
done_testing;
