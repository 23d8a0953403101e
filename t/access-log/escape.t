# No byte a client sends reaches --access-log raw: every byte outside
# printable ASCII as \xhh, " and \ after a backslash (Apache's
# ap_escape_logitem), on every path a line takes: a request the loop
# answers itself (whose request line Perl formats), a request the app
# served (the line made in C), and a format with %{FORMAT}t (whose
# lines Apache::LogFormat::Compiler's code makes), for both of those;
# and under plackup -s Kamado.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines);
use Kamado::Test::HTTP qw(read_until_close);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $APP = 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }';
# the terminal escapes of the reproduction: clear, retitle, bell
my $PWN = "\e[2J\e]0;pwned\a";

# A line has no byte outside printable ASCII, and every " in it is
# either the format's or after a backslash.
sub clean {
    my ($line, $quotes, $name) = @_;
    (my $body = $line) =~ s/\n\z//;
    ok $body !~ /[^\x20-\x7e]/, "$name: printable ASCII only" or diag explain $line;
    (my $bare = $body) =~ s/\\[\\"]//g;
    is(($bare =~ tr/"//), $quotes, "$name: only the format's $quotes quotes unescaped") or diag $line;
}

# The lines of REQUESTS under FORMAT (undef: the default), through
# kamado, or plackup -s Kamado (which takes --access_log) with plackup => 1.
sub lines_of {
    my (%a) = @_;
    my $dir = File::Temp->newdir;
    my $log = "$dir/access.log";
    my @args = ($a{plackup} ? '--access_log' : '--access-log', $log,
        ($a{format} ? ('--access-log-format', $a{format}) : ()));
    my $port = free_port();
    my $server = $a{plackup}
        ? start_plackup(port => $port, app => $APP, args => ['--port', $port, '--host', '127.0.0.1', @args])
        : start_server(args => \@args, app => $APP);
    for my $req ($a{requests}->@*) {
        my $c = $server->connect;
        syswrite $c, $req;
        read_until_close($c, 10);
    }
    my @lines = wait_lines($log, scalar $a{requests}->@*);
    is $server->stop, 0, 'the server stops cleanly';
    return @lines;
}

my $bad = "GET / HTTP/1.1$PWN\r\nHost: x\r\n\r\n";
my $served = "GET /a\"b\\c/%22?q=\"x\\ HTTP/1.1\r\nHost: x\r\nUser-Agent: ua\" 200 \"forged\\\t\xff\r\n"
    . "Referer: \"r\r\nConnection: close\r\n\r\n";

{
    my @l = lines_of(requests => [$bad, $served]);
    is scalar(@l), 2, 'default format: two lines' or diag @l;
    like $l[0], qr{"GET / HTTP/1\.1\\x1b\[2J\\x1b\]0;pwned\\x07" 400 }, 'a 400 the loop answers: its protocol escaped';
    clean($l[0], 6, 'the 400');
    like $l[1], qr{"GET /a\\"b\\\\c/%22\?q=\\"x\\\\ HTTP/1\.1" 200 }, 'a served request: " and \ escaped in %r';
    like $l[1], qr{"ua\\" 200 \\"forged\\\\\\x09\\xff"\n\z}, 'and in the User-Agent';
    clean($l[1], 6, 'the 200');
}
{
    my $f = '%{%d/%b/%Y}t "%r" %>s "%{User-agent}i" "%U" "%q" "%H" "%h" "%V"';
    my @l = lines_of(format => $f, requests => [$bad, $served]);
    is scalar(@l), 2, '%{FORMAT}t: two lines' or diag @l;
    like $l[0], qr{"GET / HTTP/1\.1\\x1b\[2J\\x1b\]0;pwned\\x07" 400 }, '%{FORMAT}t, a 400: its protocol escaped';
    like $l[0], qr{"HTTP/1\.1\\x1b\[2J\\x1b\]0;pwned\\x07" "127\.0\.0\.1"}, '%{FORMAT}t, a 400: %H escaped';
    clean($l[0], 14, '%{FORMAT}t, the 400');
    like $l[1], qr{"GET /a\\"b\\\\c/%22\?q=\\"x\\\\ HTTP/1\.1" 200 }, '%{FORMAT}t: " and \ escaped in %r';
    like $l[1], qr{ "ua\\" 200 \\"forged\\\\\\x09\\xff" }, 'in %{User-agent}i';
    like $l[1], qr{ "/a\\"b\\\\c/\\"" "\?q=\\"x\\\\" }, 'in %U and %q';
    clean($l[1], 14, '%{FORMAT}t, the 200');
}
SKIP: {
    skip 'plackup is not in PATH', 3 unless grep { -x "$_/plackup" } split /:/, $ENV{PATH} // '';
    my @l = lines_of(plackup => 1, requests => [$bad]);
    like $l[0] // '', qr{"GET / HTTP/1\.1\\x1b\[2J\\x1b\]0;pwned\\x07" 400 }, 'plackup -s Kamado: a 400, its protocol escaped';
    clean($l[0] // '', 6, 'plackup, the 400');
}
done_testing;
