package Kamado::Test::CGI;
use 5.024;
use strict;
use warnings;

# The plain-CGI reference for issue 4: run a script the way Apache 2.4's
# mod_cgi (Debian defaults) runs it, and turn its output into the HTTP
# response Apache would send. Tests compare Kamado's answers with this.
#
#   use lib 't/lib';
#   use Kamado::Test::CGI qw(run_cgi parse_cgi_output);
#   my $run = run_cgi(script => "$dir/t/cgi/b2-package-global.cgi",
#                     method => 'GET', query => 'user=alice');
#   my $res = parse_cgi_output($run->{stdout}, script => $run->{script});
#   # $res = { status => 200, reason => 'OK', headers => [[Name => value]...], body => ... }
#   #     or { internal_redirect => '/path?q', status => 200 }
#   #     or { error => 'why', status => 500 }
#
# run_cgi: what it does, and why
#   - fork, then in the child: setpgrp, chdir to the script's directory,
#     umask 022 (Debian's apache2 runs with systemd's default umask), %ENV
#     replaced by exactly the variables cgi_env() builds (RFC 3875 + what
#     Apache adds; see @CGI_ENV_VARS), STDIN/STDOUT/STDERR = three pipes,
#     then exec.
#   - exec as the kernel would run the '#!' line: the interpreter is the
#     first word (a perl interpreter is replaced by $^X, so tests use the
#     perl they run under), and everything after it, with surrounding
#     blanks and tabs trimmed, is passed as ONE argument (Linux
#     binfmt_script): '#!/usr/bin/perl -wT' runs `$^X -wT script`. A '\r'
#     stays in that argument as it would (perl accepts "-w\r"). A script
#     without '#!' is run with `$^X script` (Apache would fail to exec it).
#     Perl re-reads the '#!' line itself for the other switches.
#   - argv is the script's absolute path only (Apache adds query words as
#     argv only for an ISINDEX query without '=', which no fixture uses).
#   - the body is written to the script's stdin while stdout and stderr are
#     read (no deadlock with large bodies); stdin is closed after the body,
#     so a script reading to EOF terminates (Apache does the same).
#   - timeout (default 10 s): the whole process group gets SIGKILL.
#   - waits for EOF on stdout and stderr and for the process; a forked
#     child that keeps the pipes open therefore delays the result, as it
#     delays Apache's response.
#   Returns { stdout, stderr, exit => $?, timed_out, elapsed, chunks =>
#   [[seconds, bytes]...] (stdout as it arrived, for streaming checks),
#   env => {...} (what the script got), script => abs path }.
#
# parse_cgi_output: the Apache 2.4 rules implemented (util_script.c
# ap_scan_script_header_err_core + mod_cgi.c cgi_handler):
#   1. nph- scripts (basename starts with "nph-"; pass script => path or
#      nph => 1): the output is the response; it is parsed only so tests can
#      look at it: a status line "HTTP/x.y NNN reason", headers, body.
#   2. Header lines are read up to the first empty line; a line ends at LF,
#      a CR before the LF is removed. EOF before the empty line is
#      "Premature end of script headers" -> 500.
#   3. A line without ':' is "malformed header from script" -> 500 (this
#      includes stray output before the headers and a body printed with no
#      header block at all). Lines longer than 8190 bytes -> 500.
#   4. Name = text before the first ':', value = the rest with leading
#      whitespace removed (Content-Type also loses trailing whitespace).
#      Header names are case-insensitive; repeated headers are all kept (in
#      order) -- Apache keeps Set-Cookie lines separate and may merge other
#      repeats with ", " on the wire; compare them as a list.
#   5. "Status: NNN reason" sets the status (and reason) and is not sent as a
#      header; a status outside 100..599 -> 500.
#   6. "Location:" with the status still 200: if the value starts with '/'
#      it is an internal redirect (Apache discards the script's body and
#      serves that local URL as a GET): returned as { internal_redirect =>
#      value }; otherwise the response is a 302 with that Location and the
#      script's body is discarded (Apache writes its own "Found" page; we
#      return body '' and moved_body => 1). With an explicit non-200
#      Status, Location is an ordinary header and the body is kept.
#   7. A missing Content-Type is NOT an error in Apache 2.4 (DefaultType is
#      gone; the response simply has no Content-Type). It is reported as
#      no_content_type => 1 so callers can see it.
#   8. Headers Apache computes itself are not part of the comparison: Date,
#      Server, Connection, Keep-Alive, Transfer-Encoding (the script's own
#      Transfer-Encoding/Content-Length are kept in headers as printed).
#   9. The exit code and stderr never change the response (stderr goes to
#      the error log).

use Exporter 'import';
use Cwd ();
use File::Basename ();
use File::Spec;
use File::Temp ();
use IO::Select;
use POSIX ();
use Time::HiRes ();

our @EXPORT_OK = qw(run_cgi parse_cgi_output cgi_env shebang_command
                    @CGI_ENV_VARS %APACHE_DEFAULTS header_value put_script get_script
                    compile_error_and_reload);
our %EXPORT_TAGS = (all => \@EXPORT_OK);

# Every variable mod_cgi may put into a CGI script's environment, besides the
# HTTP_* request headers. Never REMOTE_HOST (HostnameLookups Off), never
# REMOTE_IDENT, never MOD_PERL*. HTTPS only for https; AUTH_TYPE/REMOTE_USER
# only after authentication; PATH_INFO/PATH_TRANSLATED only with path info;
# CONTENT_TYPE/CONTENT_LENGTH only when the request has them.
our @CGI_ENV_VARS = qw(
    GATEWAY_INTERFACE SERVER_PROTOCOL SERVER_SOFTWARE SERVER_SIGNATURE
    SERVER_NAME SERVER_PORT SERVER_ADDR SERVER_ADMIN
    REMOTE_ADDR REMOTE_PORT REMOTE_USER AUTH_TYPE
    REQUEST_METHOD REQUEST_URI REQUEST_SCHEME QUERY_STRING
    SCRIPT_NAME SCRIPT_FILENAME PATH_INFO PATH_TRANSLATED
    DOCUMENT_ROOT CONTEXT_PREFIX CONTEXT_DOCUMENT_ROOT
    CONTENT_TYPE CONTENT_LENGTH HTTPS PATH UNIQUE_ID
);

# Debian 12 apache2 defaults (000-default.conf, security.conf ServerSignature
# On / ServerTokens OS, serve-cgi-bin.conf ScriptAlias /cgi-bin/
# /usr/lib/cgi-bin/). Override any of them with run_cgi(env => {...}).
our %APACHE_DEFAULTS = (
    server_software => 'Apache/2.4.62 (Debian)',
    server_name     => 'localhost',
    server_port     => 80,
    server_addr     => '127.0.0.1',
    server_admin    => 'webmaster@localhost',
    remote_addr     => '127.0.0.1',
    remote_port     => 54321,
    document_root   => '/var/www/html',
    path            => '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    unique_id       => 'Z2Vuc-Rlc3QtdW5pcXVl',    # mod_unique_id is on
);

# cgi_env(%args) -> hashref: the environment mod_cgi would give the script.
# args: script (abs path), method, query, path_info, body, headers (hashref;
# a value may be an arrayref of repeated header values), script_name
# (default "/cgi-bin/<basename>"), context_prefix (default '/cgi-bin/'),
# context_document_root (default: the script's directory + '/'),
# document_root, request_uri (default script_name . path_info . ?query),
# scheme ('http'/'https'), protocol, extra => {NAME => value} (non-CGI
# variables to add, e.g. KAMADO_TEST_TMP), env => {NAME => value} (final
# overrides; undef deletes).
sub cgi_env {
    my %a = @_;
    my $script = $a{script} // die "cgi_env: script required";
    my %d = (%APACHE_DEFAULTS, %{ $a{apache} // {} });
    my $method = $a{method} // 'GET';
    my $query  = $a{query} // '';
    my $path_info = $a{path_info} // '';
    my $scheme = $a{scheme} // 'http';
    my $script_name = $a{script_name} // '/cgi-bin/' . File::Basename::basename($script);
    my $dir = File::Basename::dirname($script);
    my $docroot = $a{document_root} // $d{document_root};
    my $port = $a{server_port} // ($scheme eq 'https' && !$a{apache}{server_port} ? 443 : $d{server_port});
    my $server_name = $a{server_name} // $d{server_name};

    my %env = (
        GATEWAY_INTERFACE => 'CGI/1.1',
        SERVER_PROTOCOL   => $a{protocol} // 'HTTP/1.1',
        SERVER_SOFTWARE   => $d{server_software},
        SERVER_SIGNATURE  => "<address>$d{server_software} Server at $server_name Port $port</address>\n",
        SERVER_NAME       => $server_name,
        SERVER_PORT       => "$port",
        SERVER_ADDR       => $d{server_addr},
        SERVER_ADMIN      => $d{server_admin},
        REMOTE_ADDR       => $d{remote_addr},
        REMOTE_PORT       => "$d{remote_port}",
        REQUEST_METHOD    => $method,
        REQUEST_SCHEME    => $scheme,
        QUERY_STRING      => $query,
        SCRIPT_NAME       => $script_name,
        SCRIPT_FILENAME   => $script,
        DOCUMENT_ROOT     => $docroot,
        CONTEXT_PREFIX    => $a{context_prefix} // '/cgi-bin/',
        CONTEXT_DOCUMENT_ROOT => $a{context_document_root} // "$dir/",
        REQUEST_URI       => $a{request_uri}
                             // ($script_name . $path_info . (length $query ? "?$query" : '')),
        PATH              => $d{path},
        UNIQUE_ID         => $d{unique_id},
    );
    $env{HTTPS} = 'on' if $scheme eq 'https';
    if (length $path_info) {
        $env{PATH_INFO} = $path_info;
        # Apache maps the path info through the URL space: with the default
        # config that is DocumentRoot . PATH_INFO
        $env{PATH_TRANSLATED} = $docroot . $path_info;
    }

    my %h = %{ $a{headers} // {} };
    $h{Host} //= $server_name unless grep { lc eq 'host' } keys %h;
    if (defined $a{body} && !grep { lc eq 'content-length' } keys %h) {
        $h{'Content-Length'} = length $a{body};
    }
    for my $name (sort keys %h) {
        my $v = $h{$name};
        $v = join ', ', @$v if ref $v eq 'ARRAY';     # Apache merges repeats
        my $lc = lc $name;
        if ($lc eq 'content-type')   { $env{CONTENT_TYPE} = $v; next }
        if ($lc eq 'content-length') { $env{CONTENT_LENGTH} = "$v"; next }
        # not passed by mod_cgi: credentials (no CGIPassAuth) and Proxy (httpoxy)
        next if $lc eq 'authorization' || $lc eq 'proxy-authorization' || $lc eq 'proxy';
        # Apache 2.4 drops header names with characters other than
        # alphanumerics and '-' (so X_Foo cannot spoof X-Foo)
        next if $name =~ /[^A-Za-z0-9-]/;
        (my $var = uc $name) =~ tr/-/_/;
        $env{"HTTP_$var"} = $v;
    }
    %env = (%env, %{ $a{extra} // {} });
    while (my ($k, $v) = each %{ $a{env} // {} }) {
        if (defined $v) { $env{$k} = $v } else { delete $env{$k} }
    }
    return \%env;
}

# shebang_command($abs_script) -> list for exec, as the kernel builds it
sub shebang_command {
    my ($script) = @_;
    open(my $fh, '<:raw', $script) or die "cannot read $script: $!";
    my $line = <$fh> // '';
    close $fh;
    return ($^X, $script) unless $line =~ s/\A#!//;
    $line =~ s/\n\z//;
    $line =~ s/\A[ \t]+//;
    my ($interp, $rest) = $line =~ /\A(\S+)(.*)\z/s ? ($1, $2) : ('', '');
    $rest =~ s/\A[ \t]+//;
    $rest =~ s/[ \t]+\z//;
    my @cmd = $interp =~ m{perl[0-9.]*\z} ? ($^X) : ($interp);
    push @cmd, $rest if length $rest;
    return (@cmd, $script);
}

my $DEFAULT_TMP;

# run_cgi(%args): args of cgi_env plus
#   timeout (s, default 10); tmp: the writable directory given to the script
#   as $ENV{KAMADO_TEST_TMP} (default: one temp dir per test process; pass a
#   fresh one per case when requests of a case share state through files);
#   no_tmp => 1 leaves KAMADO_TEST_TMP out of the environment.
sub run_cgi {
    my %a = @_;
    my $script = $a{script} // die "run_cgi: script required";
    $script = File::Spec->rel2abs($script);
    $a{script} = $script;
    my $dir = File::Basename::dirname($script);
    my %extra = %{ $a{extra} // {} };
    unless ($a{no_tmp}) {
        my $tmp = $a{tmp} // ($DEFAULT_TMP //= File::Temp::tempdir('kamado-cgi-XXXXXX', TMPDIR => 1, CLEANUP => 1));
        $extra{KAMADO_TEST_TMP} //= $tmp;
    }
    $a{extra} = \%extra;
    my $env = cgi_env(%a);
    my @cmd = shebang_command($script);
    my $body = $a{body} // '';
    my $timeout = $a{timeout} // 10;

    pipe(my $in_r, my $in_w)   or die "pipe: $!";
    pipe(my $out_r, my $out_w) or die "pipe: $!";
    pipe(my $err_r, my $err_w) or die "pipe: $!";
    my $t0 = Time::HiRes::time();
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $in_w; close $out_r; close $err_r;
        POSIX::setpgid(0, 0);
        POSIX::dup2(fileno $in_r, 0);
        POSIX::dup2(fileno $out_w, 1);
        POSIX::dup2(fileno $err_w, 2);
        POSIX::close($_) for grep { $_ > 2 } map { fileno $_ } $in_r, $out_w, $err_w;
        $SIG{$_} = 'DEFAULT' for qw(PIPE ALRM CHLD INT TERM HUP);
        chdir $dir or POSIX::_exit(126);
        umask 022;
        %ENV = %$env;
        { no warnings 'exec'; exec { $cmd[0] } @cmd; }
        print STDERR "exec of '$script' failed: $!\n";
        POSIX::_exit(127);
    }
    close $in_r; close $out_w; close $err_w;
    local $SIG{PIPE} = 'IGNORE';
    my ($stdout, $stderr, @chunks) = ('', '');
    my $wsel = IO::Select->new;
    my $rsel = IO::Select->new($out_r, $err_r);
    if (length $body) { $in_w->blocking(0); $wsel->add($in_w) } else { close $in_w }
    my $off = 0;
    my $deadline = $t0 + $timeout;
    my $timed_out = 0;
    while ($rsel->count || $wsel->count) {
        my $left = $deadline - Time::HiRes::time();
        if ($left <= 0) { $timed_out = 1; last }
        my ($r, $w) = IO::Select->select($rsel, $wsel, undef, $left);
        for my $fh (@{ $w // [] }) {
            my $n = syswrite($fh, $body, 65536, $off);
            if (!defined $n) { next if $!{EAGAIN}; $wsel->remove($fh); close $fh; next }
            $off += $n;
            if ($off >= length $body) { $wsel->remove($fh); close $fh }
        }
        for my $fh (@{ $r // [] }) {
            my $n = sysread($fh, my $buf, 65536);
            if (!$n) { $rsel->remove($fh); close $fh; next }
            if ($fh == $out_r) {
                $stdout .= $buf;
                push @chunks, [Time::HiRes::time() - $t0, $buf];
            } else {
                $stderr .= $buf;
            }
        }
    }
    my $exit;
    while (1) {
        my $r = waitpid($pid, POSIX::WNOHANG());
        if ($r == $pid) { $exit = $?; last }
        if ($r < 0) { last }
        if ($timed_out || Time::HiRes::time() > $deadline) {
            $timed_out = 1;
            kill 'KILL', -$pid; kill 'KILL', $pid;
            waitpid($pid, 0); $exit = $?; last;
        }
        Time::HiRes::sleep(0.005);
    }
    kill 'KILL', -$pid if $timed_out;   # leftovers of the group
    return {
        stdout => $stdout, stderr => $stderr, exit => $exit,
        timed_out => $timed_out, elapsed => Time::HiRes::time() - $t0,
        chunks => \@chunks, env => $env, script => $script, command => \@cmd,
    };
}

sub _error { return { status => 500, error => $_[0], headers => [], body => '' } }

# parse_cgi_output($bytes, script => $path | nph => 1)
sub parse_cgi_output {
    my ($out, %o) = @_;
    my $nph = $o{nph} // (defined $o{script} && File::Basename::basename($o{script}) =~ /\Anph-/);
    if ($nph) {
        my ($head, $body) = split /\r?\n\r?\n/, $out, 2;
        return _error('nph: no status line') unless defined $head && $head =~ s{\AHTTP/\d\.\d ([0-9]{3})[ \t]*([^\r\n]*)\r?(?:\n|\z)}{};
        my ($status, $reason) = ($1 + 0, $2);
        my @h;
        for my $l (split /\r?\n/, $head) {
            my ($n, $v) = $l =~ /\A([^:]+):[ \t]*(.*)\z/ or return _error("nph: bad header line '$l'");
            push @h, [$n, $v];
        }
        return { nph => 1, status => $status, reason => $reason, headers => \@h, body => $body // '', raw => $out };
    }
    my $pos = 0;
    my ($status, $reason) = (200, 'OK');
    my (@h, $saw_status);
    while (1) {
        my $nl = index($out, "\n", $pos);
        return _error('Premature end of script headers') if $nl < 0;
        my $line = substr($out, $pos, $nl - $pos);
        $pos = $nl + 1;
        $line =~ s/\r\z//;
        return _error('Response header too long') if length($line) > 8190;
        last if $line eq '';
        my $c = index($line, ':');
        return _error('malformed header from script: Bad header: ' . substr($line, 0, 30)) if $c < 0;
        my $name = substr($line, 0, $c);
        (my $value = substr($line, $c + 1)) =~ s/\A\s+//;
        if (lc $name eq 'status') {
            my ($code) = $value =~ /\A([0-9]+)/;
            return _error("Invalid status line from script: $value")
                unless defined $code && $code >= 100 && $code <= 599;
            $status = $code + 0;
            ($reason = $value) =~ s/\A[0-9]+\s*//;
            $saw_status = 1;
            next;
        }
        $value =~ s/\s+\z// if lc $name eq 'content-type';
        push @h, [$name, $value];
    }
    my $body = substr($out, $pos);
    my ($loc) = map { $_->[1] } grep { lc $_->[0] eq 'location' } @h;
    if (defined $loc && $status == 200) {
        return { internal_redirect => $loc, status => 200, headers => \@h, body => '' }
            if $loc =~ m{\A/};
        return { status => 302, reason => 'Found', headers => \@h, body => '', moved_body => 1 };
    }
    my %res = (status => $status, reason => $reason, headers => \@h, body => $body);
    $res{no_content_type} = 1 unless grep { lc $_->[0] eq 'content-type' } @h;
    return \%res;
}

# header_value($res, 'Content-Type') -> first value (or all in list context)
sub header_value {
    my ($res, $name) = @_;
    my @v = map { $_->[1] } grep { lc $_->[0] eq lc $name } @{ $res->{headers} // [] };
    return wantarray ? @v : $v[0];
}


# put_script(DIR, NAME, CONTENT): writes an executable script as editors
# and deploys do, a new file renamed over the old one (so its inode
# changes too).
sub put_script {
    my ($dir, $name, $content) = @_;
    open my $fh, '>', "$dir/$name.new" or die "$dir/$name.new: $!";
    print $fh $content;
    close $fh;
    chmod 0755, "$dir/$name.new" or die "$dir/$name.new: $!";
    rename "$dir/$name.new", "$dir/$name" or die "$dir/$name: $!";
}

# get_script(SERVER, PATH): GET /cgi-bin/PATH on a fresh connection, the
# parsed response ({ status => 0, body => '' } when there was none).
sub get_script {
    my ($server, $path) = @_;
    require Kamado::Test;
    require Kamado::Test::HTTP;
    my $raw = Kamado::Test::raw_request($server, "GET /cgi-bin/$path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return Kamado::Test::HTTP::parse_response($raw) // { status => 0, body => '' };
}

# compile_error_and_reload(SERVER, DIR): the tests every compiling mode
# shares, with SERVER serving DIR at /cgi-bin on two or more workers: a
# script that does not compile is a 500 with perl's error (file, line) in
# the log; after the fix it works; a changed script is compiled again, in
# every worker.
sub compile_error_and_reload {
    my ($server, $dir) = @_;
    require Test::More;
    put_script($dir, 'app.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'version one' +;\n");
    Test::More::is(get_script($server, 'app.cgi')->{status}, 500, 'a script with a syntax error: 500');
    Test::More::like($server->log, qr{syntax error at \Q$dir\E/app\.cgi line 2}, "perl's error, with file and line, is in the log");
    Test::More::like($server->log, qr{\Q$dir\E/app\.cgi: could not be compiled}, 'and Kamado says so');
    put_script($dir, 'app.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'version one';\n");
    Test::More::is(get_script($server, 'app.cgi')->{body}, 'version one', 'after the fix the next request works');
    put_script($dir, 'app.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'version two, longer';\n");
    my %seen = map { (get_script($server, 'app.cgi')->{body} => 1) } 1 .. 6;
    Test::More::is_deeply([keys %seen], ['version two, longer'], 'a changed script is compiled again, in every worker');
}
1;
