# Every hazard fixture in t/cgi/ (t/cgi/cases.pl), run through a live
# Kamado with --cgi-bin, compared with the same script run as plain CGI
# (Kamado::Test::CGI: fork and exec perl as Apache's mod_cgi does, and
# Apache's rules for its output): status, headers (less Date and the
# framing) and body, byte for byte. The requests of all fixtures are
# interleaved, on two workers (KAMADO_TEST_PRELOAD_CGI=1: with
# --preload-cgi, t/preload/cgi-fixtures.t). Modes: exec and fork; where a mode cannot
# match by design, the case says why and what it gives instead (the
# fork => { why, body_like } of t/cgi/cases.pl).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Cwd ();
use File::Temp ();
use Kamado;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::CGI qw(run_cgi parse_cgi_output);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr{t/cgi/[\w-]+\.cgi: (?:end of script output before|malformed header from script)});

my $root = Cwd::realpath('t/cgi');
my @cases = do "$root/cases.pl" or die "t/cgi/cases.pl: $@";
# scripts keep state in files there: one directory for the server's runs,
# another for the reference's, so each side sees only its own history
my $tmp = File::Temp::tempdir(CLEANUP => 1);
mkdir "$tmp/$_" or die for qw(server reference);
$ENV{KAMADO_TEST_TMP} = "$tmp/server";    # passed on by --cgi-env

# the same environment on both sides: what a server name, port and
# version make different is told to the reference
my %SKIP_HEADER = map { $_ => 1 } qw(date transfer-encoding content-length connection);

for my $mode (split /,/, $ENV{KAMADO_TEST_CGI_MODES} || "exec,fork,registry,perlrun") {
    my $server = start_server(no_app => 1, workers => 2,
        args => ['--cgi-bin', "/cgi-bin=$root", '--cgi-mode', $mode, '--cgi-env', 'KAMADO_TEST_TMP',
            ($ENV{KAMADO_TEST_PRELOAD_CGI} ? '--preload-cgi' : ())]);
    like $server->log, qr/--preload-cgi \Q$root\E: [^\n]*\b\d+ $mode\b/, "$mode: the scripts were preloaded"
        if $ENV{KAMADO_TEST_PRELOAD_CGI};
    # one request of each case at a time, round robin, so that any state
    # one script leaves behind meets the others
    my @queue = map { my $case = $_; [map { [$case, $_] } 0 .. $#{ $case->{requests} }] } @cases;
    while (my @round = grep { @$_ } @queue) {
        for my $list (@round) {
            my ($case, $i) = @{ shift @$list };
            compare($server, $mode, $case, $i);
        }
    }
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;

sub compare {
    my ($server, $mode, $case, $i) = @_;
    my $req = $case->{requests}[$i];
    my $name = "$mode: $case->{script} #" . ($i + 1);
    my $c = $server->connect;
    my %headers = (Host => 'localhost', %{ $req->{headers} // {} });
    my $method = $req->{method} // 'GET';
    my $body = $req->{body};
    my $target = "/cgi-bin/$case->{script}" . ($req->{path_info} // '')
        . (length($req->{query} // '') ? "?$req->{query}" : '');
    my $head = "$method $target HTTP/1.1\r\n" . join('', map { "$_: $headers{$_}\r\n" } sort keys %headers)
        . (defined $body ? 'Content-Length: ' . length($body) . "\r\n" : '') . "\r\n";
    syswrite $c, $head . ($body // '');
    my $got = read_response($c, timeout => 15, head => $method eq 'HEAD');
    my $want = reference($server, $case, $req, $c->sockport, \%headers);
    return fail("$name: no answer from Kamado") unless $got;
    if (($case->{compare} // 'exact') eq 'differs') {
        is $got->{status}, $want->{status}, "$name: status (the body differs by design)";
        return;
    }
    if (ref(my $doc = $case->{$mode}) eq 'HASH') {
        # what this mode documents instead of plain CGI's output
        like $got->{status}, $doc->{status_like} // qr/\A\Q$want->{status}\E\z/, "$name: status as documented ($doc->{why})";
        like $got->{body}, $doc->{body_like}, "$name: body as documented ($doc->{why})";
        return;
    }
    is $got->{status}, $want->{status}, "$name: status";
    # (an error page is each server's own)
    return if $want->{status} == 500 && $want->{error};
    my @got_h = map { [lc $_->[0], $_->[1]] } grep { !$SKIP_HEADER{ lc $_->[0] } } _pairs($got->{raw_headers} // $got->{head});
    my @want_h = map { [lc $_->[0], $_->[1]] } grep { !$SKIP_HEADER{ lc $_->[0] } } @{ $want->{headers} // [] };
    is_deeply \@got_h, \@want_h, "$name: headers";
    # (after a redirect to elsewhere Apache sends a "Found" page of its own)
    return if $want->{moved_body};
    is $got->{body}, $want->{body}, "$name: body";
}

# the response plain CGI gives, following an internal redirect as Apache does
sub reference {
    my ($server, $case, $req, $remote_port, $headers) = @_;
    my %run = (
        script => "$root/$case->{script}", method => $req->{method} // 'GET', query => $req->{query} // '',
        path_info => $req->{path_info} // '', body => $req->{body}, headers => $headers,
        script_name => "/cgi-bin/$case->{script}", document_root => $root,
        context_prefix => '/cgi-bin/', context_document_root => "$root/",
        server_port => $server->port, server_name => 'localhost',
        apache => { server_software => "Kamado/$Kamado::VERSION", remote_port => $remote_port,
                    server_admin => '[no address given]' },
        env => { PATH => $ENV{PATH} }, extra => { KAMADO_TEST_TMP => "$tmp/reference" },
    );
    for (1 .. 5) {
        my $run = run_cgi(%run);
        my $res = parse_cgi_output($run->{stdout}, script => $run->{script});
        return $res unless defined $res->{internal_redirect};
        my ($path, $query) = split /\?/, $res->{internal_redirect}, 2;
        my ($script, $info) = $path =~ m{^/cgi-bin/([^/]+)(.*)} or return { status => 302 };
        %run = (%run, script => "$root/$script", method => 'GET', query => $query // '', path_info => $info,
            body => undef, script_name => "/cgi-bin/$script", request_uri => $res->{internal_redirect});
        delete $run{headers}{'Content-Type'};
    }
    return { status => 500 };
}

sub _pairs {
    my ($head) = @_;
    my @lines = split /\r\n/, $head;
    shift @lines;
    return map { [/^([^:]+):\s*(.*)$/] } @lines;
}
