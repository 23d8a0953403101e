# Modes registry and perlrun (scripts run inside the worker), over real
# sockets: compile errors and reload (a script, a library it requires, a
# module of its own lib/); state that must not survive a run (globals,
# file-scoped lexicals read by named subs, exit in eval); a hostile script
# cannot change the worker for what comes next (cwd, umask, %SIG, alarm,
# $/, select, layers, %ENV); a #! -T script runs in fork mode; and the
# .kamado-cgi mode file.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::CGI qw(put_script get_script compile_error_and_reload);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/could not be compiled \(its errors are above\)|unknown mode 'fast'|ran for more than \d+ s \(--cgi-timeout\)/);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $server;
sub put { put_script($root, @_) }
sub get { get_script($server, @_) }
sub bodies { my ($script, $n) = @_; my %seen = map { (get($script)->{body} => 1) } 1 .. $n; [sort keys %seen] }

mkdir "$root/lib" or die;
mkdir "$root/forked" or die;
for my $mode (qw(registry perlrun)) {
    note "mode $mode";
    $server = start_server(app => 'sub { require Cwd; [200, [], [sprintf "cwd=%s umask=%03o rs=%s inc=%s zero=%s it=%s main=%s", Cwd::getcwd(), umask,
        defined $/ ? "nl" : "undef", (grep { $_ eq "/hostile" } @INC) ? "script" : "worker", $0 =~ /hostile/ ? "script" : "worker", ($_ // "") =~ /hostile/ ? "script" : "worker", $main::{leak} && defined ${ *{ $main::{leak} }{SCALAR} } ? "leaked" : "clean"]] }',
        workers => 2, args => ['--cgi-bin', $root, '--cgi-mode', $mode, '--cgi-timeout', 2]);
    my $psgi = raw_request($server, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    my ($worker_state) = $psgi =~ /(cwd=.*)\z/;

    compile_error_and_reload($server, $root);

    # the line of an error at the end of the script is the script's own
    put('brace.cgi', "print qq{Content-Type: text/plain\\n\\n};\nif (1) {\n");
    is get('brace.cgi')->{status}, 500, 'a missing brace: 500';
    like $server->log,
        qr{^\Q$root/brace.cgi\E \[[^\]]+\]: Missing right curly or square bracket at \Q$root/brace.cgi\E line 2,}m,
        "logged at the script's last line, as perl says it";
    # exit in a BEGIN block: under CGI it ends the process every time
    put('begin-exit.cgi', "BEGIN { print qq{Content-Type: text/plain\\n\\nearly exit \$ENV{QUERY_STRING}}; exit 0 }\n"
        . "print ' never';\n");
    # (registry compiles in the variables no request changes: the query
    # is the run's, not the compile's; perlrun compiles in the request's,
    # as CGI, and auto mode sends such a script there: t/cgi-runner/compile-env.t)
    is join('|', map { get("begin-exit.cgi?$_")->{body} } 1 .. 3),
        $mode eq 'perlrun' ? 'early exit 1|early exit 2|early exit 3' : 'early exit |early exit |early exit ',
        'exit in a BEGIN block: what was printed, every time';
    unlike $server->log, qr{begin-exit\.cgi(?: line \d+)?[:.,] .*(?:Exit=|could not be compiled)|^Exit=}m, 'and no error logged';

    put('lib.pl', "sub greeting { 'hello from lib one' }\n1;\n");
    put('lib/Helper.pm', "package Helper;\nsub name { 'helper one' }\n1;\n");
    put('uses-lib.cgi', "require './lib.pl';\nuse lib 'lib';\nuse Helper;\n"
        . "print qq{Content-Type: text/plain\n\n}, greeting(), ', ', Helper::name(), ', ', __PACKAGE__->can('greeting') ? 'mine' : 'not mine';\n");
    is get('uses-lib.cgi')->{body}, 'hello from lib one, helper one, mine', "a library is compiled into the script's package";
    put('other.cgi', "print qq{Content-Type: text/plain\n\n}, defined &greeting ? 'shared' : 'not shared';\n");
    is get('other.cgi')->{body}, 'not shared', "another script does not see it";
    put('lib.pl', "sub greeting { 'hello from lib two, changed' }\n1;\n");
    is_deeply bodies('uses-lib.cgi', 6), ['hello from lib two, changed, helper one, mine'], 'a changed library: compiled again';
    put('lib/Helper.pm', "package Helper;\nsub name { 'helper two, changed' }\n1;\n");
    is_deeply bodies('uses-lib.cgi', 6), ['hello from lib two, changed, helper two, changed, mine'],
        'a changed module of its own lib/ too';

    put('state.cgi', <<'CGI');
$hits++;
push @seen, $ENV{QUERY_STRING};
my $count = 0;
sub bump { $count++ }
bump();
eval { print "Content-Type: text/plain\n\nhits=$hits seen=@seen count=$count"; exit 0; };
print " after the eval";
CGI
    is_deeply bodies('state.cgi', 6), ['hits=1 seen= count=1'],
        'globals, file-scoped lexicals read by named subs, exit in eval: as under CGI, every time';

    # a run's lexicals are new, as in a new process: perl keeps an emptied
    # variable's string body for the next call, and an integer loop on it
    # then takes perl's slow path (B tells the body: IV, or PVIV)
    put('fresh.cgi', <<'CGI');
use B;
my $n = 0;
my $kind = ref B::svref_2object(\$n);
sub counter { my $m = 0; $m++; my $k = ref B::svref_2object(\$m); my $s = "$m"; $k }
my $in_sub = counter();
my $s = "$n";
print "Content-Type: text/plain\n\n$kind $in_sub";
CGI
    is_deeply bodies('fresh.cgi', 6), ['B::IV B::IV'], "a run's file-scoped and sub lexicals start as a new process's";

    put('warns.cgi', "#!/usr/bin/perl -w\nmy \$count = 1;\nsub show { ++\$count }\n"
        . "sub outer { my \$x = shift; sub inner { \$x } inner() }\nprint qq{Content-Type: text/plain\\n\\n}, show(), outer(7);\n");
    is_deeply bodies('warns.cgi', 4), ['27'], '#! -w: a named sub and its file-scoped variable';
    unlike $server->log, qr{"\$count" will not stay shared}, 'no warning about the wrapper: its variables are shared';
    like $server->log, qr{"\$x" will not stay shared at \Q$root\E/warns\.cgi line 4}, "perl's warning between the script's own subs stays";

    put('hostile.cgi', <<'CGI');
chdir '/'; umask 0; $/ = undef; $\ = "!";
$SIG{TERM} = 'IGNORE'; $SIG{ALRM} = sub { print STDERR "late alarm\n" }; alarm 1;
$0 = 'hostile title'; $_ = 'hostile it'; unshift @INC, '/hostile'; $! = 5; $? = 256; $ENV{PATH} = '/nowhere'; $ENV{KAMADO_LEAK} = 'yes'; delete $ENV{SERVER_NAME}; select STDERR; binmode STDOUT, ':encoding(UTF-8)'; $main::leak = 1;
print STDOUT "Content-Type: text/plain\n\nhostile \x{e9}";
CGI
    is get('hostile.cgi')->{status}, 200, 'a script that changes everything it can';
    like raw_request($server, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), qr/\Q$worker_state\E\z/,
        'the PSGI app in the same workers still has its cwd, umask, $/, @INC, $0 and $_, and main:: is its own';
    put('clean.cgi', <<'CGI');
my $child = `echo \${KAMADO_LEAK:-none} \${SERVER_NAME:-none}`;
chomp $child;
print qq{Content-Type: text/plain\n\n}, 'PATH=', $ENV{PATH} eq '/nowhere' ? 'changed' : 'as set', ' sep=', defined $\ ? 'set' : 'unset',
    ' inc=', (grep { $_ eq '/hostile' } @INC) ? 'leaked' : 'own', ' status=', $? + 0,
    ' leak=', $ENV{KAMADO_LEAK} // 'none', ' name=', $ENV{SERVER_NAME} // 'none', " child=$child", qq{ \xe9};
CGI
    is_deeply bodies('clean.cgi', 4), ["PATH=as set sep=unset inc=own status=0 leak=none name=x child=none x \xe9"],
        "the next script gets its own %ENV (and its children the same environment), \$\\, and no layer on STDOUT";
    sleep 2;
    unlike $server->log, qr/late alarm/, "the script's alarm was cancelled";

    # the output file is kept from run to run: a run's output is what it
    # wrote, never the end of a longer one before it
    put('long.cgi', "print qq{Content-Type: text/plain\\n\\n}, 'x' x 100_000;\n");
    put('short.cgi', "print qq{Content-Type: text/plain\\n\\n}, 'short';\n");
    my @got = map { (length get('long.cgi')->{body}, get('short.cgi')->{body}) } 1 .. 3;
    is_deeply \@got, [(100_000, 'short') x 3], 'a short output after a long one is only itself';

    put('tainted.cgi', "#!/usr/bin/perl -T\nprint qq{Content-Type: text/plain\\n\\n}, 'taint=', \${^TAINT}, ' pkg=', __PACKAGE__;\n");
    is get('tainted.cgi')->{body}, 'taint=1 pkg=main', '#! -T: run in fork mode, tainted';

    # .kamado-cgi: fork for one directory, back to this mode for a script
    put('pkg.cgi', "print qq{Content-Type: text/plain\\n\\n}, __PACKAGE__ eq 'main' ? 'own process' : 'in-process';\n");
    put('forked/pkg.cgi', "print qq{Content-Type: text/plain\\n\\n}, __PACKAGE__ eq 'main' ? 'own process' : 'in-process';\n");
    put('forked/back.cgi', "print qq{Content-Type: text/plain\\n\\n}, __PACKAGE__ eq 'main' ? 'own process' : 'in-process';\n");
    put('forked/.kamado-cgi', "# this directory runs in fork mode\nmode fork\nmode $mode back.cgi\n");
    is get('pkg.cgi')->{body}, 'in-process', "without a mode file: --cgi-mode $mode";
    is get('forked/pkg.cgi')->{body}, 'own process', '.kamado-cgi: mode fork for its directory';
    is get('forked/back.cgi')->{body}, 'in-process', '.kamado-cgi: a line naming a script wins';
    put('forked/.kamado-cgi', "mode fast\n");
    is get('forked/pkg.cgi')->{status}, 500, 'an unknown mode: 500';
    like $server->log, qr{\Q$root\E/forked/\.kamado-cgi line 1: unknown mode 'fast'}, 'logged with the file and line';
    unlink "$root/forked/.kamado-cgi";
    is get('forked/pkg.cgi')->{body}, 'in-process', 'the file removed: the server\'s mode again';

    # --cgi-timeout: in-process, a limit on the whole run
    put('silent.cgi', "sleep 60;\n");
    put('started.cgi', "\$| = 1; print qq{Content-Type: text/plain\\n\\nstarted\\n}; sleep 60; print qq{never\\n};\n");
    put('stubborn.cgi', "for (1 .. 2) { eval { sleep 60 } } print qq{Content-Type: text/plain\\n\\nnever\\n};\n");
    # (the stubborn one catches the die: its worker is ended, its 504 the
    # worker's last words)
    for (['silent.cgi', 504, "Gateway Timeout\n"], ['started.cgi', 200, "started\n"], ['stubborn.cgi', 504, undef]) {
        my ($script, $status, $body) = @$_;
        my $t0 = time;
        my $r = get($script);
        is $r->{status}, $status, "$script: stopped by --cgi-timeout ($status)";
        is $r->{body}, $body, "$script: with what it had written" if defined $body;
        cmp_ok time - $t0, '<', 15, "$script: in time";
    }
    like $server->log, qr{\Q$root/silent.cgi\E: ran for more than 2 s \(--cgi-timeout\): stopped}, 'logged';
    # (the stubborn one caught the die: the kernel ended its worker)
    is get('app.cgi')->{body}, 'version two, longer', 'the workers serve on';

    is $server->stop, 0, 'TERM: exit 0 (the hostile script\'s TERM handler was not kept)';
}
# registry keeps at most $Kamado::CGI::InProcess::Scripts::MAX_COMPILED compiled
# scripts per worker: past it, the least recently used is compiled again
# when it comes back (a BEGIN block says when a script compiles)
{
    my $dir = File::Temp::tempdir(CLEANUP => 1);
    for my $name (qw(a b c)) {
        put_script($dir, "$name.cgi", "BEGIN { print STDERR qq{compiling $name\\n} }\n"
            . "print qq{Content-Type: text/plain\\n\\n$name};\n");
    }
    my $app = 'require Kamado::CGI::InProcess::Scripts; $Kamado::CGI::InProcess::Scripts::MAX_COMPILED = 2; '
        . 'sub { [404, [], []] }';
    $server = start_server(app => $app, workers => 1, args => ['--cgi-bin', $dir, '--cgi-mode', 'registry']);
    is join(' ', map { get("$_.cgi")->{body} } qw(a b a c a b)), 'a b a c a b', 'six requests to three scripts';
    my %compiles;
    $compiles{$_}++ for $server->log =~ /compiling (\w)/g;
    is_deeply \%compiles, { a => 1, b => 2, c => 1 },
        'two compiled scripts kept: b, the least recently used, went for c and was compiled again';
}

done_testing;
