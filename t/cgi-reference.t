use 5.024;
use strict;
use warnings;
use Test::More;
use File::Temp ();
use File::Find ();
use Cwd ();
use lib 't/lib';
use Kamado::Test::CGI qw(run_cgi parse_cgi_output header_value @CGI_ENV_VARS cgi_env);

# The plain-CGI reference: every fixture in t/cgi/cases.pl, run the way
# Apache mod_cgi runs it (Kamado::Test::CGI), gives the response its
# manifest entry (and its own comment) says. This proves the fixtures and
# the harness; the server tests compare Kamado against the same runs.
# No server build needed.

my $root = Cwd::abs_path('t/cgi') or die "run from the repository root";
my @cases = do "$root/cases.pl";
die "cases.pl: $@" if $@;
ok(@cases >= 45, scalar(@cases) . ' fixtures in the manifest');

# every hazard of the catalogue has at least one fixture
my %ids = map { $_->{hazard} => 1 } @cases;
my @want = ((map {"A$_"} 1..5), (map {"B$_"} 1..11), (map {"C$_"} 1..6),
            (map {"D$_"} 1..8), (map {"E$_"} 1..11));
is_deeply([grep { !$ids{$_} } @want], [], 'every hazard id A1-E11 has a fixture');

# every script in t/cgi is in the manifest, and every manifest entry exists
my %listed = map { $_->{script} => 1 } @cases;
my @on_disk;
File::Find::find({ no_chdir => 1, wanted => sub {
    push @on_disk, substr($File::Find::name, length($root) + 1) if /\.cgi\z/;
} }, $root);
is_deeply([sort grep { !$listed{$_} } @on_disk], [], 'every .cgi fixture is in the manifest');
is_deeply([sort grep { !-f "$root/$_" } keys %listed], [], 'every manifest script exists');
for my $c (@cases) {
    my $n = @{ $c->{requests} };
    ok($n >= 2 && $n <= 4, "$c->{script}: 2-4 requests") or diag "$n requests";
    like($c->{compare}, qr/\A(?:exact|differs|status-only)\z/, "$c->{script}: compare");
    ok(defined $c->{registry} && length $c->{registry}, "$c->{script}: registry note");
    ok(-x "$root/$c->{script}", "$c->{script} is executable");
}

sub have { my $m = shift; return eval "require $m; 1" }

my %seen_body;
for my $c (@cases) {
    my @missing = grep { !have($_) } @{ $c->{requires} // [] };
    SKIP: {
        skip "$c->{script}: needs @missing (Debian libcgi-pm-perl)", 1 if @missing;
        subtest "$c->{hazard} $c->{script}: $c->{what}" => sub { run_case($c) };
    }
}

sub run_case {
    my ($c) = @_;
    my $tmp = File::Temp::tempdir('kamado-cgiref-XXXXXX', TMPDIR => 1, CLEANUP => 1);
    my (@bodies, $first);
    my $i = 0;
    for my $rq (@{ $c->{requests} }) {
        $i++;
        my $label = "request $i ($rq->{method} ?" . ($rq->{query} // '') . ")";
        my $run = run_cgi(
            script      => "$root/$c->{script}",
            method      => $rq->{method},
            query       => $rq->{query},
            path_info   => $rq->{path_info},
            body        => $rq->{body},
            headers     => $rq->{headers},
            script_name => "/cgi-bin/$c->{script}",
            tmp         => $tmp,
        );
        ok(!$run->{timed_out}, "$label: finished") or next;
        my $res = parse_cgi_output($run->{stdout}, script => $run->{script});
        $first //= [$rq, $res];
        my $e = $rq->{expect};
        if (defined $e->{internal_redirect}) {
            is($res->{internal_redirect}, $e->{internal_redirect}, "$label: internal redirect");
        } else {
            ok(!defined $res->{internal_redirect}, "$label: no internal redirect");
        }
        is($res->{status}, $e->{status}, "$label: status $e->{status}")
            or diag "error: " . ($res->{error} // '') . "\nstdout: $run->{stdout}\nstderr: $run->{stderr}"
            if defined $e->{status};
        is($res->{body}, $e->{body}, "$label: body") or diag "stderr: $run->{stderr}" if defined $e->{body};
        like($res->{body}, $e->{body_like}, "$label: body like") if $e->{body_like};
        unlike($res->{body}, $e->{body_unlike}, "$label: body unlike") if $e->{body_unlike};
        for my $h (sort keys %{ $e->{headers} // {} }) {
            is(scalar header_value($res, $h), $e->{headers}{$h}, "$label: header $h");
        }
        for my $h (@{ $e->{no_headers} // [] }) {
            ok(!defined header_value($res, $h), "$label: no $h header");
        }
        is($run->{stderr}, $e->{stderr}, "$label: stderr") if defined $e->{stderr};
        like($run->{stderr}, $e->{stderr_like}, "$label: stderr like") if $e->{stderr_like};
        cmp_ok($run->{elapsed}, '<=', $e->{max_elapsed}, "$label: done in time") if $e->{max_elapsed};
        if ($e->{first_chunk_before}) {
            cmp_ok($run->{chunks}[0][0], '<', $e->{first_chunk_before}, "$label: first bytes early (streamed)");
            ok(@{ $run->{chunks} } > 1, "$label: output arrived in several chunks");
        }
        push @bodies, $res->{body} // '';
    }
    if ($c->{compare} eq 'differs') {
        my %u = map { $_ => 1 } @bodies;
        is(scalar(keys %u), scalar(@bodies), 'random output differs between requests');
        ok(!grep({ $seen_body{$_}++ } @bodies), 'and from earlier runs');
    } elsif ($c->{compare} eq 'exact' && !$c->{tmp}) {
        # determinism: the first request again gives the same response
        my ($rq, $res) = @$first;
        my $run = run_cgi(script => "$root/$c->{script}", method => $rq->{method}, query => $rq->{query},
            path_info => $rq->{path_info}, body => $rq->{body}, headers => $rq->{headers},
            script_name => "/cgi-bin/$c->{script}", tmp => $tmp);
        is_deeply(parse_cgi_output($run->{stdout}, script => $run->{script}), $res, 'deterministic: first request repeated');
    }
}

# e5-srand42 is deterministic even though it is random: same n every time
{
    my @n = map { run_cgi(script => "$root/e5-srand42.cgi", query => "a=$_")->{stdout} } 1 .. 2;
    is($n[0], $n[1], 'srand(42) output repeats across requests');
}

# ---- the environment contract
{
    my $env = cgi_env(script => "$root/e2-env-dump.cgi", query => 'x=1', path_info => '/p',
                      headers => { 'X-Foo' => 'a', 'X_Bad' => 'b', Authorization => 'Basic x', Proxy => 'evil',
                                   'Content-Type' => 'text/plain', Cookie => ['a=1', 'b=2'] },
                      body => 'hello');
    my %allowed = map { $_ => 1 } @CGI_ENV_VARS;
    is_deeply([grep { !$allowed{$_} && !/^HTTP_/ } sort keys %$env], [], 'only CGI variables (+HTTP_*)');
    ok(!exists $env->{$_}, "$_ never set") for qw(REMOTE_HOST MOD_PERL MOD_PERL_API_VERSION HTTP_PROXY HTTP_AUTHORIZATION HTTP_X_BAD HTTP_CONTENT_TYPE HTTPS);
    is($env->{HTTP_X_FOO}, 'a', 'headers become HTTP_*');
    is($env->{HTTP_COOKIE}, 'a=1, b=2', 'repeated headers merged');
    is($env->{HTTP_HOST}, 'localhost', 'Host defaults to SERVER_NAME');
    is($env->{CONTENT_LENGTH}, 5, 'CONTENT_LENGTH from the body');
    is($env->{PATH_TRANSLATED}, '/var/www/html/p', 'PATH_TRANSLATED = DOCUMENT_ROOT . PATH_INFO');
    is($env->{REQUEST_URI}, '/cgi-bin/e2-env-dump.cgi/p?x=1', 'REQUEST_URI');
    is($env->{SCRIPT_FILENAME}, "$root/e2-env-dump.cgi", 'SCRIPT_FILENAME');
    my $s = cgi_env(script => "$root/e2-env-dump.cgi", scheme => 'https');
    is($s->{HTTPS}, 'on', 'HTTPS=on for https');
    is($s->{SERVER_PORT}, '443', 'port 443 for https');
}

# ---- parse_cgi_output rules, directly
{
    my $p = parse_cgi_output("Content-Type: text/plain\r\nX-A: 1\r\n\r\nbody\r\n");
    is($p->{status}, 200, 'CRLF headers: 200');
    is($p->{body}, "body\r\n", 'body bytes untouched');
    is(parse_cgi_output("Status: 99 Odd\n\n")->{status}, 500, 'status < 100: 500');
    is(parse_cgi_output("Status: 600\n\n")->{status}, 500, 'status >= 600: 500');
    is(parse_cgi_output('X-Long: ' . ('a' x 9000) . "\n\n")->{status}, 500, 'over-long header line: 500');
    is(parse_cgi_output("Status: 204\n\n")->{status}, 204, 'Status without reason');
    my $r = parse_cgi_output("Status: 200 OK\nLocation: /x\n\n");
    is($r->{internal_redirect}, '/x', 'explicit Status 200 + local Location is still an internal redirect');
    $r = parse_cgi_output("Location: https://example.org/\nContent-Type: text/html\n\n<p>moved</p>");
    is_deeply([$r->{status}, $r->{body}], [302, ''], 'absolute Location: 302, body discarded');
    is(parse_cgi_output("")->{status}, 500, 'empty output: 500');
    is(parse_cgi_output("\nbody")->{status}, 200, 'empty header block is accepted');
    $r = parse_cgi_output("HTTP/1.1 206 Partial\r\nX: y\r\n\r\nxx", nph => 1);
    is_deeply([$r->{status}, $r->{body}], [206, 'xx'], 'nph: status line and body');
    is(parse_cgi_output("Content-Type: text/plain\n\nx", nph => 1)->{status}, 500, 'nph without status line');
}

# ---- run_cgi plumbing
{
    my $run = run_cgi(script => "$root/d1-stdin-read.cgi", method => 'POST', body => 'x' x 200_000,
                      headers => { 'Content-Type' => 'text/plain' });
    like($run->{stdout}, qr/length=200000\n/, 'large body written without deadlock');
    is_deeply([ (Kamado::Test::CGI::shebang_command("$root/e10-taint.cgi"))[1] ], ['-T'], '#! switches passed as one argument');
    is_deeply([ (Kamado::Test::CGI::shebang_command("$root/d8-crlf.cgi"))[1] ], ["-w\r"], 'CRLF #! keeps the \r like the kernel');
}

done_testing;
