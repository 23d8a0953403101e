use strict;
use warnings;
use Test::More;
use Kamado::CGI::Output;

# The CGI response head as Apache's mod_cgi reads it (the parse is in C:
# src/proto/kd_cgi_head.c). The fixtures of t/cgi-runner check it end to end; these
# are the rules one by one, each fed whole and a byte at a time.

sub parse {
    my ($output, $bytewise) = @_;
    my $parser = Kamado::CGI::Output->new;
    my $head;
    for my $chunk ($bytewise ? split(//, $output) : $output) {
        last if $head = $parser->feed($chunk);
    }
    return $head // $parser->finish;
}

my @cases = (
    ["Content-Type: text/plain\n\nHello", { status => 200, headers => ['Content-Type', 'text/plain'], rest => 'Hello' }, 'LF'],
    ["Content-Type: text/plain\r\n\r\nHi\r\n", { status => 200, headers => ['Content-Type', 'text/plain'], rest => "Hi\r\n" }, 'CRLF'],
    ["A: 1\r\nB: 2\n\r\nx", { status => 200, headers => [A => 1, B => 2], rest => 'x' }, 'LF and CRLF mixed'],
    ["\nbody", { status => 200, headers => [], rest => 'body' }, 'an empty head'],
    ["X-A:  spaced \t \nX-B:\n\n", { status => 200, headers => ['X-A', 'spaced', 'X-B', ''], rest => '' }, 'blanks around values'],
    ["X-A: one\n  two\n\tthree\n\n", { status => 200, headers => ['X-A', 'one two three'], rest => '' }, 'folded lines'],
    ["Status: 404 Not Found\nContent-Type: text/html\n\n", { status => 404, headers => ['Content-Type', 'text/html'], rest => '' }, 'Status'],
    ["status:301\nLocation: /elsewhere\n\n", { status => 301, headers => ['Location', '/elsewhere'], rest => '' }, 'Status with a local Location'],
    ["Location: http://example.com/\n\n", { status => 302, headers => ['Location', 'http://example.com/'], rest => '' }, 'an absolute Location: 302'],
    ["LOCATION: /local?x=1\n\n", { redirect => '/local?x=1' }, 'a local Location without Status: an internal redirect'],
    ["Status: 2000\n\n", { error => 'malformed header from script. Bad Status: 2000' }, 'a Status of four digits'],
    ["Status: 200\xe9\n\n", { error => "malformed header from script. Bad Status: 200\xe9" }, 'a Status followed by a Latin-1 letter'],
    ["Status: 20x\n\n", { error => 'malformed header from script. Bad Status: 20x' }, 'a Status that is not a number'],
    ["Hello world\n\n", { error => 'malformed header from script. Bad header: Hello world' }, 'a line that is not a header'],
    [" X: y\n\n", { error => 'malformed header from script. Bad header:  X: y' }, 'a folded line first'],
    ["X-Long: " . ('a' x 100) . "\nBad line " . ('b' x 100) . "\n\n",
     { error => 'malformed header from script. Bad header: Bad line ' . ('b' x 71) . '...' }, 'a long bad line shortened'],
    ["Content-Type: text/plain\n", { error => 'end of script output before the end of the headers' }, 'no empty line'],
    ["", { error => 'end of script output before headers' }, 'no output'],
    # (more lines than the XS has room for on its stack: parsed again with room)
    [join('', map { "H$_: $_\n" . ($_ % 10 ? '' : " fold $_\n") } 1 .. 40) . "\r\nbody\n",
     { status => 200, headers => [map { ("H$_", $_ % 10 ? $_ : "$_ fold $_") } 1 .. 40], rest => "body\n" }, 'forty headers'],
);
for my $case (@cases) {
    my ($output, $want, $name) = @$case;
    is_deeply parse($output), $want, $name;
    # (the head is complete before the body comes: the rest is empty)
    is_deeply parse($output, 1), { %$want, exists $want->{rest} ? (rest => '') : () }, "$name, a byte at a time";
}
is_deeply parse('X: ' . ('y' x (64 * 1024))), { error => 'header too long' }, 'a head over 64 KiB without its end';

# the whole output at once (the in-process modes): the same head, or
# undef for feed and finish to say why
is_deeply Kamado::CGI::Output::parse("Content-Type: text/plain\n\nbody"),
    parse("Content-Type: text/plain\n\nbody"), 'parse: the whole output at once';
is Kamado::CGI::Output::parse("Content-Type: text/plain\n"), undef, 'parse: a head without its end';

# an nph- script's output: its status line becomes the status, in one
# piece or a byte at a time
for my $step (0, 1) {
    my $parser = Kamado::CGI::Output->new(nph => 1);
    my $head;
    for my $chunk ($step ? split(//, "HTTP/1.1 202 Accepted\r\nX-Nph: yes\r\n\r\nraw") : "HTTP/1.1 202 Accepted\r\nX-Nph: yes\r\n\r\nraw") {
        last if $head = $parser->feed($chunk);
    }
    is $head->{status}, 202, "nph: the status line's status" . ($step ? ', a byte at a time' : '');
    is_deeply $head->{headers}, ['X-Nph' => 'yes'], 'nph: its headers';
}
is_deeply(Kamado::CGI::Output->new(nph => 1)->finish, { error => 'end of script output before headers' },
    'nph: nothing written');

done_testing;
