#<<< (a hand-laid table: perltidy leaves it as it is)
# t/cgi/cases.pl -- manifest of the CGI hazard fixtures (issue 4).
#
# Data only: `my @cases = do './t/cgi/cases.pl'` (or require) returns a list
# of hashes, one per fixture:
#
#   script   path under t/cgi (scripts in subdirectories run with cwd = that
#            subdirectory, like every CGI script)
#   hazard   id in doc/CGI-HAZARDS.md section 2
#   what     one line
#   requests 2-4 requests, run IN ORDER; parameters differ so that state
#            leaking from one request into the next shows. Each request:
#              method, path_info, query, body (undef = none), headers
#              expect => what plain CGI (Apache mod_cgi) gives, as checked by
#                t/cgi-reference.t against Kamado::Test::CGI:
#                status            HTTP status after parse_cgi_output
#                body              exact body bytes
#                body_like         regexp the body must match
#                body_unlike       regexp the body must not match
#                headers           { Name => value } that must be present
#                                  (first value, name case-insensitive)
#                no_headers        [ names that must be absent ]
#                internal_redirect the local URL Apache would serve instead
#                stderr            exact stderr ('' = nothing logged)
#                stderr_like       regexp for stderr
#                max_elapsed       seconds the run may take at most
#                first_chunk_before the first stdout bytes must arrive
#                                  before this many seconds (streaming)
#   compare  'exact'  : status, headers (less Date etc.) and body byte for
#                       byte equal to plain CGI;
#            'differs': RANDOM output: the body must differ between the
#                       requests of the case (and from other runs); status
#                       and headers compare exactly.
#            'status-only': reserved for time-dependent output (none of the
#                       current fixtures needs it: time-dependent ones print
#                       only "fresh"/"stale"-style verdicts).
#   registry 'same' when registry mode must give plain CGI's output, else why
#            it cannot (from the catalogue; the server test then asserts the
#            documented behaviour instead).
#   requires optional: [ modules the fixture needs ] (CGI, CGI::Carp come
#            from Debian's libcgi-pm-perl); tests skip the case without them.
#   tmp      optional: 'per-case' when requests share state through files in
#            $ENV{KAMADO_TEST_TMP}: every run of the case needs one fresh,
#            empty directory, used by all its requests.
#
# $ENV{KAMADO_TEST_TMP}: the only place fixtures write to (a5, b7, c5, e6,
# e7, e11). The harness sets it; a server test must set it in the scripts'
# environment too (it is not a CGI variable; e2-env-dump.cgi hides KAMADO_*).
#
# Fixture-relative data files (not scripts): b5-config.pl, b6-template.txt,
# b12-lib/, c1-data.txt, c2-lib/, c3-config.pl, c6-lib.pl, e3-data.txt,
# shared-lib/lib.pl, shared-lib/fmt.pl, app1/lib.pl, app2/lib.pl. Note .pl
# files are scripts by Kamado's default extensions; nothing requests them.

my $form = { 'Content-Type' => 'application/x-www-form-urlencoded' };

(
# ---------------------------------------------------------------- A
{ script => 'a1-exit-top.cgi', hazard => 'A1', what => 'exit at top level; code after it never runs',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'page=1', expect => { status => 200, body => "closed for maintenance\n" } },
    { method => 'GET', query => 'page=2', expect => { status => 200, body => "closed for maintenance\n" } },
  ] },
{ script => 'a2-exit-in-eval.cgi', hazard => 'A2', what => 'exit inside eval is not caught: nothing after the eval is printed',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "in eval\n", body_unlike => qr/AFTER|footer/ } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "in eval\n" } },
  ] },
{ script => 'a2-exit-in-sub.cgi', hazard => 'A2', what => 'exit in a sub called inside eval in a loop ends the script',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'x=1', expect => { status => 200, body => "error: no such entry\n" } },
    { method => 'GET', query => 'x=2', expect => { status => 200, body => "error: no such entry\n" } },
  ] },
{ script => 'a3-die-handler-exit.cgi', hazard => 'A3', what => 'exit does not call the script\'s $SIG{__DIE__}',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => '', expect => { status => 200, body => "ok\n", body_unlike => qr/DIE-HANDLER/ } },
    { method => 'GET', query => 'again=1', expect => { status => 200, body => "ok\n" } },
  ] },
{ script => 'a3-die-handler-page.cgi', hazard => 'A3', what => 'own __DIE__ error page decided by $^S (fatalsToBrowser logic)',
  compare => 'exact',
  # $^S is true inside the worker (the server runs the app inside an
  # eval), so a __DIE__ handler that checks it stays quiet, as under
  # ModPerl::Registry: the die is a 500 (early) or ends the page (late)
  registry => { why => '$^S is true in-process', status_like => qr/\A(?:500|200)\z/, body_like => qr/\A(?:Internal Server Error\n|body\n)\z/ },
  perlrun  => { why => '$^S is true in-process', status_like => qr/\A(?:500|200)\z/, body_like => qr/\A(?:Internal Server Error\n|body\n)\z/ },
  requests => [
    { method => 'GET', query => 'early', expect => { status => 200, body => "Error page: boom (early)\n" } },
    { method => 'GET', query => 'late', expect => { status => 200,
        body => "body\nContent-type: text/plain\n\nError page: boom (late)\n" } },
  ] },
{ script => 'a3-fatals-to-browser.cgi', hazard => 'A3', what => 'CGI::Carp fatalsToBrowser error page (Status: 500 from CGI::Carp)',
  compare => 'exact', requires => ['CGI::Carp'],
  # ($^S is true in-process, but CGI::Carp is asked whether the script
  # itself is in an eval: Kamado::CGI::InProcess::Run::_script_in_eval)
  registry => 'same', perlrun => 'same',
  requests => [
    { method => 'GET', query => 'item1', expect => { status => 500, headers => { 'Content-Type' => 'text/html' },
        body_like => qr{<h1>Software error:</h1>\n<pre>cannot open database for item item1\n</pre>},
        body_unlike => qr/inside eval/, stderr_like => qr/cannot open database for item item1/ } },
    { method => 'GET', query => 'item2', expect => { status => 500,
        body_like => qr{cannot open database for item item2\n}, body_unlike => qr/item1/ } },
  ] },
{ script => 'a4-die-after-output.cgi', hazard => 'A4', what => 'die after output: 200 with the partial page, message in the log',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'n=1', expect => { status => 200, body => "<p>Please fill in your name</p>\n", stderr => "db error\n" } },
    { method => 'GET', query => 'n=2', expect => { status => 200, body => "<p>Please fill in your name</p>\n" } },
  ] },
{ script => 'a4-exit-nonzero.cgi', hazard => 'A4', what => 'exit(1) after a full page: the page stands',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'n=1', expect => { status => 200, body => "<p>Please fill in your name</p>\n" } },
    { method => 'POST', query => '', body => 'name=', headers => $form, expect => { status => 200, body => "<p>Please fill in your name</p>\n" } },
  ] },
{ script => 'a4-die-before-output.cgi', hazard => 'A4', what => 'die before any header: 500 (premature end of script headers)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 500, stderr_like => qr/cannot open \.\/no-such-config\.dat/ } },
    { method => 'GET', query => 'a=2', expect => { status => 500 } },
  ] },
{ script => 'a5-fork.cgi', hazard => 'A5', what => 'fork: the child does work and exits, the parent reports and prints',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'job=1', expect => { status => 200,
        body => "queued\nchild status 0: child ran\nparent done\n", body_unlike => qr/CHILD-AFTER-EXIT/ } },
    { method => 'GET', query => 'job=2', expect => { status => 200, body => "queued\nchild status 0: child ran\nparent done\n" } },
    { method => 'GET', query => 'job=3', expect => { status => 200, body => "queued\nchild status 0: child ran\nparent done\n" } },
  ] },

# ---------------------------------------------------------------- B
{ script => 'b1-file-scoped-my.cgi', hazard => 'B1', what => 'named subs read file-scoped my variables (closure problem)',
  compare => 'exact',
  registry => 'same (the named subs are pointed at each run\'s file-scoped lexicals before it starts: Kamado::CGI::InProcess::Require::share_lexicals)',
  requests => [
    { method => 'GET', query => 'name=alice&host=h1', expect => { status => 200, body => "count: 2 / 2\nhello alice\ncheck: valid\n" } },
    { method => 'GET', query => 'name=bob&host=h2', expect => { status => 200, body => "count: 2 / 2\nhello bob\ncheck: valid\n" } },
    { method => 'GET', query => 'name=carol&host=h3', expect => { status => 200, body => "count: 2 / 2\nhello carol\ncheck: valid\n" } },
  ] },
{ script => 'b2-package-global.cgi', hazard => 'B2', what => 'package globals: counter and $authenticated are fresh each request',
  compare => 'exact',
  registry => 'same (package variables are put back to their compile-time values after each run: Kamado::CGI::InProcess::Snapshot)',
  requests => [
    { method => 'GET', query => 'user=alice&pass=secret', expect => { status => 200, body => "hits=1\nauthenticated=1\nseen=1\n" } },
    { method => 'GET', query => 'user=mallory', expect => { status => 200, body => "hits=1\nauthenticated=0\nseen=1\n" } },
    { method => 'GET', query => 'user=bob', expect => { status => 200, body => "hits=1\nauthenticated=0\nseen=1\n" } },
  ] },
{ script => 'b3-no-package-main.cgi', hazard => 'B3', what => 'no package line: __PACKAGE__, main:: dispatch, $::x, main->can',
  compare => 'exact',
  # each script has a package of its own in-process: main:: is not it
  # (main:: names reach the script's own while it runs: the dispatch,
  # $main::config and main->can work; __PACKAGE__ is compiled in)
  registry => { why => '__PACKAGE__ is the script\'s own package', body_like => qr/\Apackage=Kamado::CGI::ROOT::\w+\ndispatch=(?:form|list) shown\nconfig=board\.conf\/board\.conf\ncan=yes\ncaller_pkg=none\n\z/ },
  perlrun  => { why => '__PACKAGE__ is the script\'s own package', body_like => qr/\Apackage=Kamado::CGI::ROOT::\w+\ndispatch=(?:form|list) shown\nconfig=board\.conf\/board\.conf\ncan=yes\ncaller_pkg=none\n\z/ },
  requests => [
    { method => 'GET', query => 'mode=show_form', expect => { status => 200,
        body => "package=main\ndispatch=form shown\nconfig=board.conf/board.conf\ncan=yes\ncaller_pkg=none\n" } },
    { method => 'GET', query => 'mode=show_list', expect => { status => 200,
        body => "package=main\ndispatch=list shown\nconfig=board.conf/board.conf\ncan=yes\ncaller_pkg=none\n" } },
  ] },
{ script => 'shared-lib/read.cgi', hazard => 'B4', what => 'one of three scripts sharing a package-less ./lib.pl (&decode, packaged fmt.pl)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'no=1&name=alice', expect => { status => 200, body => "read.cgi: [1][alice]\nlib_loaded=1 lock_mode=2\n" } },
    { method => 'GET', query => 'no=2&name=bob', expect => { status => 200, body => "read.cgi: [2][bob]\nlib_loaded=1 lock_mode=2\n" } },
  ] },
{ script => 'shared-lib/post.cgi', hazard => 'B4', what => 'second script on the shared ./lib.pl: &ReadParse of a POST body',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'POST', query => '', body => 'subject=hi&msg=first+post', headers => $form,
      expect => { status => 200, body => "post.cgi: msg=first post\npost.cgi: subject=hi\nlib_loaded=1 lock_mode=2\n" } },
    { method => 'POST', query => '', body => 'subject=re&from=bob', headers => $form,
      expect => { status => 200, body => "post.cgi: from=bob\npost.cgi: subject=re\nlib_loaded=1 lock_mode=2\n" } },
  ] },
{ script => 'shared-lib/search.cgi', hazard => 'B4', what => 'third script on ./lib.pl, with explicit package main and ReadParse(*input)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'q=perl', expect => { status => 200, body => "search.cgi: q=perl\nlib_loaded=1 lock_mode=2\n" } },
    { method => 'GET', query => 'q=cgi+scripts', expect => { status => 200, body => "search.cgi: q=cgi scripts\nlib_loaded=1 lock_mode=2\n" } },
  ] },
{ script => 'app1/index.cgi', hazard => 'B4', what => 'app1: its own ./lib.pl, same script name as app2/index.cgi',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'item=one', expect => { status => 200, body => "app=app1 title=Guestbook One\n<app1>one,x</app1>\n" } },
    { method => 'GET', query => 'item=two', expect => { status => 200, body => "app=app1 title=Guestbook One\n<app1>two,x</app1>\n" } },
  ] },
{ script => 'app2/index.cgi', hazard => 'B4', what => 'app2: its own ./lib.pl (other code), same script name as app1/index.cgi',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'item=one', expect => { status => 200, body => "app=app2 title=Board Two\n{app2:one|x}\n" } },
    { method => 'GET', query => 'item=two', expect => { status => 200, body => "app=app2 title=Board Two\n{app2:two|x}\n" } },
  ] },
{ script => 'b5-require-once.cgi', hazard => 'B5', what => 'required config file: its top-level code runs every request',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'grant=alice', expect => { status => 200, body => "loaded=1\nadmins=root alice\nconfig_fresh=1\n" } },
    { method => 'GET', query => '', expect => { status => 200, body => "loaded=1\nadmins=root\nconfig_fresh=1\n" } },
    { method => 'GET', query => 'grant=bob', expect => { status => 200, body => "loaded=1\nadmins=root bob\nconfig_fresh=1\n" } },
  ] },
{ script => 'b6-begin-compile-time.cgi', hazard => 'B6', what => 'BEGIN blocks, use constant => time, BEGIN-time relative open',
  compare => 'exact',
  registry => { why => 'compile-time constant: STARTED is frozen when the script is compiled; BEGIN runs once per compile', body_like => qr/\Abegin_runs=1\nstarted=(?:fresh|stale)\ntemplate=b6 template line\n\z/ },
  perlrun => 'same (compiled for every request)',
  # fork mode compiles once too (the zygote), and every child starts from that
  fork => { why => 'compile-time constant: STARTED is the time the zygote compiled the script', body_like => qr/\Abegin_runs=1\nstarted=(?:fresh|stale)\ntemplate=b6 template line\n\z/ },
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "begin_runs=1\nstarted=fresh\ntemplate=b6 template line\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "begin_runs=1\nstarted=fresh\ntemplate=b6 template line\n" } },
  ] },
{ script => 'b7-end-block.cgi', hazard => 'B7', what => 'END block runs (and prints) at the end of every request',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "<p>page</p>\n<!-- generated; tmp removed=1 -->\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "<p>page</p>\n<!-- generated; tmp removed=1 -->\n" } },
  ] },
{ script => 'b8-regex-o.cgi', hazard => 'B8', what => '/o regex: each request matches its own keyword',
  compare => 'exact',
  registry => { why => 'unfixable without recompiling: /o keeps the first keyword the worker saw', body_like => qr/\Akw=\w+\nmatch=[\w ,]+\n\z/ },
  perlrun => 'same (compiled for every request)',
  requests => [
    { method => 'GET', query => 'q=ban', expect => { status => 200, body => "kw=ban\nmatch=banana split\n" } },
    { method => 'GET', query => 'q=che', expect => { status => 200, body => "kw=che\nmatch=cherry tart\n" } },
    { method => 'GET', query => 'q=p', expect => { status => 200, body => "kw=p\nmatch=apple pie,banana split\n" } },
  ] },
{ script => 'b8-each-iterator.cgi', hazard => 'B8', what => 'each() iterator left mid-way on a global hash',
  compare => 'exact',
  registry => 'same (package variables, the hash and its iterator included, are put back after each run)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "entries=3\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "entries=3\n" } },
    { method => 'GET', query => 'a=3', expect => { status => 200, body => "entries=3\n" } },
  ] },
{ script => 'b8-state.cgi', hazard => 'B8', what => 'state variable in a named sub',
  compare => 'exact',
  registry => { why => 'unfixable without recompiling: the state variable keeps counting in a worker', body_like => qr/\Acalls=\d+,\d+\n\z/ },
  perlrun => 'same (compiled for every request)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "calls=1,2\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "calls=1,2\n" } },
  ] },
{ script => 'b9-caller-guard.cgi', hazard => 'B9', what => 'modulino guard: main() unless caller; caller depth',
  compare => 'exact',
  # in-process the script is the body of a sub, but caller hides it
  registry => 'same (Kamado::CGI::InProcess::Run\'s caller: no frame reaches past the script\'s top)',
  perlrun  => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "main ran, depth=1\ncalled from line 11 of b9-caller-guard.cgi\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "main ran, depth=1\ncalled from line 11 of b9-caller-guard.cgi\n" } },
  ] },
{ script => 'b10-handler-name.cgi', hazard => 'B10', what => 'script defines sub handler and uses undeclared $self/$eval/$r',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200,
        body => "handler=script's own handler\nself=undef\neval=undef\nr=undef\nargs=0/0\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200,
        body => "handler=script's own handler\nself=undef\neval=undef\nr=undef\nargs=0/0\n" } },
  ] },
{ script => 'b11-redefine.cgi', hazard => 'B11', what => 'constant + prototype under -w: no redefinition warnings',
  compare => 'exact', registry => 'same (a reload may log "redefined"/"Prototype mismatch" warnings; the output stays the same)',
  requests => [
    { method => 'GET', query => 'n=2', expect => { status => 200, body => "limit=10 helper=4\n", stderr => '' } },
    { method => 'GET', query => 'n=5', expect => { status => 200, body => "limit=10 helper=10\n", stderr => '' } },
  ] },

{ script => 'b12-require-inc-data.cgi', hazard => 'B12', what => 'package-less data file required through @INC at run time (AWStats lib/*.pm)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a', expect => { status => 200, body => "engines=3\norder=google bing duckduckgo\nloads=1\nhits=bing:4,duckduckgo:10,google:6\nquery=a\n", stderr => '' } },
    { method => 'GET', query => 'b', expect => { status => 200, body => "engines=3\norder=google bing duckduckgo\nloads=1\nhits=bing:4,duckduckgo:10,google:6\nquery=b\n", stderr => '' } },
    { method => 'GET', query => 'c', expect => { status => 200, body => "engines=3\norder=google bing duckduckgo\nloads=1\nhits=bing:4,duckduckgo:10,google:6\nquery=c\n", stderr => '' } },
  ] },

# ---------------------------------------------------------------- C
{ script => 'c1-relative-open.cgi', hazard => 'C1', what => 'relative open at run time; the script chdirs away and never back',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "data=count=42\ninit=script dir\nafter chdir: elsewhere\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "data=count=42\ninit=script dir\nafter chdir: elsewhere\n" } },
  ] },
{ script => 'c2-use-lib.cgi', hazard => 'C2', what => 'use lib \'./c2-lib\' and BEGIN-time relative @INC + require',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "module=C2Mod from c2-lib\npaths=./Boards\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "module=C2Mod from c2-lib\npaths=./Boards\n" } },
  ] },
{ script => 'c3-do-no-dot.cgi', hazard => 'C3', what => 'do "file" without ./ fails quietly on perl >= 5.26 (title=undef)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200,
        body => "do=undef\ntitle=undef\nwith ./: title=Config Title\n", stderr_like => qr/'\.' is no longer in \@INC/ } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "do=undef\ntitle=undef\nwith ./: title=Config Title\n" } },
  ] },
{ script => 'c3-require-no-dot.cgi', hazard => 'C3', what => 'require "file" without ./ dies on perl >= 5.26: 500',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 500, stderr_like => qr/Can't locate c3-config\.pl in \@INC/ } },
    { method => 'GET', query => 'a=2', expect => { status => 500 } },
  ] },
{ script => 'c4-findbin-inc.cgi', hazard => 'C4', what => 'FindBin $Bin, @INC growth, $0, __FILE__',
  compare => 'exact',
  registry => 'same (FindBin::again() before each run)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200,
        body => "bin_is_script_dir=1\ninc_added=1\n0=c4-findbin-inc.cgi file=c4-findbin-inc.cgi\n0_absolute=1\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200,
        body => "bin_is_script_dir=1\ninc_added=1\n0=c4-findbin-inc.cgi file=c4-findbin-inc.cgi\n0_absolute=1\n" } },
  ] },
{ script => 'c5-file-age.cgi', hazard => 'C5', what => '-M relative to $^T; a file written now is fresh',
  compare => 'exact', registry => 'same (needs $^T = time per request; "cache=age ...s" and T_is_now=0 otherwise once the worker is >2 s old)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "cache=fresh\nT_is_now=1\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "cache=fresh\nT_is_now=1\n" } },
  ] },
{ script => 'c6-reload.cgi', hazard => 'C6', what => 'script + private lib versions (a reload test edits copies of both)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "script=1 lib=1\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "script=1 lib=1\n" } },
  ] },

# ---------------------------------------------------------------- D
{ script => 'd1-stdin-read.cgi', hazard => 'D1', what => 'read(STDIN, $buf, CONTENT_LENGTH)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'POST', query => '', body => 'name=alice&msg=hello', headers => $form,
      expect => { status => 200, body => "length=20\nbody=name=alice&msg=hello\n" } },
    { method => 'POST', query => '', body => 'name=bob', headers => $form,
      expect => { status => 200, body => "length=8\nbody=name=bob\n" } },
  ] },
{ script => 'd1-stdin-eof.cgi', hazard => 'D1', what => '@lines = <STDIN> reads to EOF and ends',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'POST', query => '', body => "one\ntwo\nthree", headers => { 'Content-Type' => 'text/plain' },
      expect => { status => 200, body => "lines=3\nlast=three\n" } },
    { method => 'POST', query => '', body => "solo\n", headers => { 'Content-Type' => 'text/plain' },
      expect => { status => 200, body => "lines=1\nlast=solo\n\n" } },
    { method => 'GET', query => 'x=1', expect => { status => 200, body => "lines=0\n\n" } },
  ] },
{ script => 'd2-cgi-new-twice.cgi', hazard => 'D2', what => 'CGI->new twice in one request reads the POST once, both see it',
  compare => 'exact', registry => 'same', requires => ['CGI'],
  requests => [
    { method => 'POST', query => '', body => 'a=1&b=2', headers => $form,
      expect => { status => 200, body => "q1=a=1,b=2\nq2=a=1,b=2\n" } },
    { method => 'POST', query => '', body => 'c=3', headers => $form,
      expect => { status => 200, body => "q1=c=3\nq2=c=3\n" } },
  ] },
{ script => 'd3-exec.cgi', hazard => 'D3', what => 'exec: the program\'s output ends the response; a failed exec returns false',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'e=1', expect => { status => 200,
        body => "before\nexec failed: errno set\nfrom exec: e=1\n", body_unlike => qr/AFTER-EXEC/ } },
    { method => 'GET', query => 'e=2', expect => { status => 200,
        body => "before\nexec failed: errno set\nfrom exec: e=2\n" } },
  ] },
{ script => 'd3-system.cgi', hazard => 'D3', what => 'system() child output goes to the response (fd 1); backticks',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'u=1', expect => { status => 200,
        body => "before\nfrom system\nfrom sh: u=1\ncaptured: from backticks\nafter\n" } },
    { method => 'GET', query => 'u=2', expect => { status => 200,
        body => "before\nfrom system\nfrom sh: u=2\ncaptured: from backticks\nafter\n" } },
  ] },
{ script => 'd3-format-write.cgi', hazard => 'D3', what => 'format STDOUT / STDOUT_TOP and write',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'name=zed', expect => { status => 200,
        body => "Name       Score\n---------- -----\nalice         10\nbob            7\nzed            3\n" } },
    { method => 'GET', query => 'name=yolanda', expect => { status => 200,
        body => "Name       Score\n---------- -----\nalice         10\nbob            7\nyolanda        3\n" } },
  ] },
{ script => 'd3-close-stdout.cgi', hazard => 'D3', what => 'close(STDOUT) finishes the response; work continues',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "thanks, your post is saved\n",
        body_unlike => qr/AFTER-CLOSE/, stderr_like => qr/work done after close/ } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "thanks, your post is saved\n" } },
  ] },
{ script => 'd3-sysread-stdin.cgi', hazard => 'D3', what => 'sysread(STDIN) and fileno(STDIN/STDOUT) on real fds',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'POST', query => '', body => 'x=1&y=2', headers => $form,
      expect => { status => 200, body => "fileno=0 fileno_out=1\nsysread=ok got=7\nbody=x=1&y=2\n" } },
    { method => 'POST', query => '', body => 'z=' . ('q' x 100), headers => $form,
      expect => { status => 200, body => "fileno=0 fileno_out=1\nsysread=ok got=102\nbody=z=" . ('q' x 100) . "\n" } },
  ] },
{ script => 'd3-autoflush-stream.cgi', hazard => 'D5', what => '$| = 1 progress page, streamed (~0.5 s)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "<p>Rebuilding..... done</p>\n", first_chunk_before => 0.3 } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "<p>Rebuilding..... done</p>\n", first_chunk_before => 0.3 } },
  ] },
{ script => 'd3-pipe-open.cgi', hazard => 'D3', what => 'open(PIPE, "|sort"): the child writes to the response',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "apple\nfig\npear\nend\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "apple\nfig\npear\nend\n" } },
  ] },
{ script => 'd4-binmode-utf8.cgi', hazard => 'D4', what => 'binmode STDOUT :encoding(UTF-8)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "\xe3\x81\x82\xe3\x81\x84\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "\xe3\x81\x82\xe3\x81\x84\n" } },
  ] },
{ script => 'd4-latin1-bytes.cgi', hazard => 'D4', what => 'raw Latin-1 bytes: must not pick up another script\'s layer',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "caf\xe9\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "caf\xe9\n" } },
  ] },
{ script => 'nph-d5-status.cgi', hazard => 'D5', what => 'nph- script: its output is the response (HTTP/1.0 299 Custom)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 299, headers => { 'X-NPH' => 'yes', 'Content-Type' => 'text/plain' }, body => "nph body\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 299, body => "nph body\n" } },
  ] },
{ script => 'd6-status.cgi', hazard => 'D6', what => 'Status: 404 with a body (also the target of d6-location-local)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 404, body => "no such article\n", no_headers => ['Status'] } },
    { method => 'GET', query => 'from=local', expect => { status => 404, body => "no such article\n" } },
  ] },
{ script => 'd6-location-absolute.cgi', hazard => 'D6', what => 'Location: absolute URL, no Status: 302, script body discarded',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 302, headers => { Location => 'http://www.example.com/thanks.html' } } },
    { method => 'POST', query => '', body => 'a=2', headers => $form, expect => { status => 302, headers => { Location => 'http://www.example.com/thanks.html' } } },
  ] },
{ script => 'd6-location-local.cgi', hazard => 'D6', what => 'Location: local path, no Status: internal redirect (served as GET)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { internal_redirect => '/cgi-bin/d6-status.cgi?from=local' } },
    { method => 'POST', query => '', body => 'a=2', headers => $form, expect => { internal_redirect => '/cgi-bin/d6-status.cgi?from=local' } },
  ] },
{ script => 'd6-location-status.cgi', hazard => 'D6', what => 'Status: 301 + local Location: a normal 301 with the script body',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 301, headers => { Location => '/new/place.html' }, body => "<a href=\"/new/place.html\">moved</a>\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 301, body => "<a href=\"/new/place.html\">moved</a>\n" } },
  ] },
{ script => 'd6-output-before-headers.cgi', hazard => 'D6', what => 'stray output line before the headers: 500 malformed header',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 500 } },
    { method => 'GET', query => 'a=2', expect => { status => 500 } },
  ] },
{ script => 'd6-no-header.cgi', hazard => 'D6', what => 'no header block at all: 500 malformed header',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 500 } },
    { method => 'GET', query => 'a=2', expect => { status => 500 } },
  ] },
{ script => 'd6-premature-end.cgi', hazard => 'D6', what => 'EOF before the empty line: 500 premature end of script headers',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 500 } },
    { method => 'GET', query => 'a=2', expect => { status => 500 } },
  ] },
{ script => 'd6-repeated-headers.cgi', hazard => 'D6', what => 'CRLF header lines, two Set-Cookie, colons in a value',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "cookies set\n",
        headers => { 'Content-Type' => 'text/plain', 'Set-Cookie' => 'a=1; path=/', 'X-Custom' => 'value:with:colons' } } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "cookies set\n" } },
  ] },
{ script => 'd6-no-content-type.cgi', hazard => 'D6', what => 'valid header block without Content-Type: 200, no Content-Type (Apache 2.4)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "untyped body\n", no_headers => ['Content-Type'] } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "untyped body\n" } },
  ] },
{ script => 'd7-warn-stderr.cgi', hazard => 'D7', what => 'warn / print STDERR / -w warning go to the log only',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "ok\n",
        stderr_like => qr/d7 warning\n.*d7 stderr line\n.*Use of uninitialized value/s } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "ok\n" } },
  ] },
{ script => 'd8-end-no-newline.cgi', hazard => 'D8', what => '__END__ as the last line without a newline',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "end ok\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "end ok\n" } },
  ] },
{ script => 'd8-data-own-package.cgi', hazard => 'D8', what => '__DATA__ under the script\'s own package (Blosxom)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'flav=html', expect => { status => 200,
        body => "flavour=html head=<html><body> foot=</body></html>\nmain_data=none\n" } },
    { method => 'GET', query => 'flav=rss', expect => { status => 200,
        body => "flavour=rss head=<rss> foot=</rss>\nmain_data=none\n" } },
  ] },
{ script => 'd8-crlf.cgi', hazard => 'D8', what => 'CRLF line endings (shebang "-w\r" included) and CRLF __DATA__',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "crlf ok, data lines=2 lengths=10,10,\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "crlf ok, data lines=2 lengths=10,10,\n" } },
  ] },
{ script => 'd8-ctrl-z.cgi', hazard => 'D8', what => 'DOS ^Z end-of-script marker; garbage after it',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "before ctrl-z\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "before ctrl-z\n" } },
  ] },
{ script => 'd8-end-in-heredoc.cgi', hazard => 'D8', what => '"__END__" line inside a heredoc and inside POD, then a real __END__',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200,
        body => "<pre>\nconfig:\n__END__\ntail of the heredoc\n</pre>\nafter pod\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200,
        body => "<pre>\nconfig:\n__END__\ntail of the heredoc\n</pre>\nafter pod\n" } },
  ] },
{ script => 'd8-data-main.cgi', hazard => 'D8', what => '__DATA__ in main read whole on every request',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "data lines=2: first line\nsecond line\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "data lines=2: first line\nsecond line\n" } },
  ] },

# ---------------------------------------------------------------- E
{ script => 'e1-cgi-params.cgi', hazard => 'E1', what => 'CGI.pm form data never crosses users (OO and function style)',
  compare => 'exact', registry => 'same', requires => ['CGI'],
  requests => [
    { method => 'GET', query => 'name=alice', expect => { status => 200, body => "name=alice\nfn_name=alice\nparams=name\n" } },
    { method => 'GET', query => 'other=1', expect => { status => 200, body => "name=undef\nfn_name=undef\nparams=other\n" } },
    { method => 'POST', query => '', body => 'name=bob', headers => $form, expect => { status => 200, body => "name=bob\nfn_name=bob\nparams=name\n" } },
  ] },
{ script => 'e1-cgi-pragmas.cgi', hazard => 'E1', what => 'use CGI qw(-utf8): parameters decoded on every request',
  compare => 'exact', registry => 'same', requires => ['CGI'],
  requests => [
    { method => 'GET', query => 'w=%E3%81%82', expect => { status => 200, body => "length=1 utf8=1\n" } },
    { method => 'GET', query => 'w=%C3%A9', expect => { status => 200, body => "length=1 utf8=1\n" } },
  ] },
{ script => 'e1-post-max.cgi', hazard => 'E1', what => '$CGI::POST_MAX set by one request does not limit the next',
  compare => 'exact', registry => 'same', requires => ['CGI'],
  requests => [
    { method => 'POST', query => 'limit=1', body => 'data=0123456789abcdef', headers => $form,
      expect => { status => 200, body => "error=413 Request entity too large\npost_max=10\n" } },
    { method => 'POST', query => '', body => 'data=0123456789abcdef', headers => $form,
      expect => { status => 200, body => "error=none\npost_max=-1\n" } },
  ] },
{ script => 'e2-env-dump.cgi', hazard => 'E2', what => 'the CGI environment: variable names, request values, no REMOTE_HOST/MOD_PERL',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', headers => { 'X-Test' => 'one' }, expect => { status => 200,
        body => "keys=CONTEXT_DOCUMENT_ROOT,CONTEXT_PREFIX,DOCUMENT_ROOT,GATEWAY_INTERFACE,PATH,QUERY_STRING,REMOTE_ADDR,REMOTE_PORT,REQUEST_METHOD,REQUEST_SCHEME,REQUEST_URI,SCRIPT_FILENAME,SCRIPT_NAME,SERVER_ADDR,SERVER_ADMIN,SERVER_NAME,SERVER_PORT,SERVER_PROTOCOL,SERVER_SIGNATURE,SERVER_SOFTWARE,UNIQUE_ID\n"
              . "GATEWAY_INTERFACE=CGI/1.1\nREQUEST_METHOD=GET\nQUERY_STRING=a=1\nPATH_INFO=(unset)\nCONTENT_LENGTH=(unset)\nCONTENT_TYPE=(unset)\nHTTP_X_TEST=one\nREMOTE_HOST=unset\nMOD_PERL=unset\n" } },
    { method => 'POST', query => '', path_info => '/extra/path', body => 'b=2', headers => $form, expect => { status => 200,
        body => "keys=CONTENT_LENGTH,CONTENT_TYPE,CONTEXT_DOCUMENT_ROOT,CONTEXT_PREFIX,DOCUMENT_ROOT,GATEWAY_INTERFACE,PATH,PATH_INFO,PATH_TRANSLATED,QUERY_STRING,REMOTE_ADDR,REMOTE_PORT,REQUEST_METHOD,REQUEST_SCHEME,REQUEST_URI,SCRIPT_FILENAME,SCRIPT_NAME,SERVER_ADDR,SERVER_ADMIN,SERVER_NAME,SERVER_PORT,SERVER_PROTOCOL,SERVER_SIGNATURE,SERVER_SOFTWARE,UNIQUE_ID\n"
              . "GATEWAY_INTERFACE=CGI/1.1\nREQUEST_METHOD=POST\nQUERY_STRING=\nPATH_INFO=/extra/path\nCONTENT_LENGTH=3\nCONTENT_TYPE=application/x-www-form-urlencoded\nHTTP_X_TEST=(unset)\nREMOTE_HOST=unset\nMOD_PERL=unset\n" } },
    { method => 'GET', query => 'c=3', expect => { status => 200,
        body => "keys=CONTEXT_DOCUMENT_ROOT,CONTEXT_PREFIX,DOCUMENT_ROOT,GATEWAY_INTERFACE,PATH,QUERY_STRING,REMOTE_ADDR,REMOTE_PORT,REQUEST_METHOD,REQUEST_SCHEME,REQUEST_URI,SCRIPT_FILENAME,SCRIPT_NAME,SERVER_ADDR,SERVER_ADMIN,SERVER_NAME,SERVER_PORT,SERVER_PROTOCOL,SERVER_SIGNATURE,SERVER_SOFTWARE,UNIQUE_ID\n"
              . "GATEWAY_INTERFACE=CGI/1.1\nREQUEST_METHOD=GET\nQUERY_STRING=c=3\nPATH_INFO=(unset)\nCONTENT_LENGTH=(unset)\nCONTENT_TYPE=(unset)\nHTTP_X_TEST=(unset)\nREMOTE_HOST=unset\nMOD_PERL=unset\n" } },
  ] },
{ script => 'e2-env-changes.cgi', hazard => 'E2', what => '%ENV changes (TZ, PATH, delete, new var) do not outlive the request',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'first', expect => { status => 200,
        body => "tz_at_start=unset\nold_value=unset\npath_at_start=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\njst_offset_hours=9\n" } },
    { method => 'GET', query => 'second', expect => { status => 200,
        body => "tz_at_start=unset\nold_value=unset\npath_at_start=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\njst_offset_hours=9\n" } },
  ] },
{ script => 'e3-special-vars.cgi', hazard => 'E3', what => '$/ $\ $, $" $; $^W set without local',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "rs=newline ors=unset ofs=unset list_sep=[ ] subsep=default\nlines=3\njoined=a b\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "rs=newline ors=unset ofs=unset list_sep=[ ] subsep=default\nlines=3\njoined=a b\n" } },
  ] },
{ script => 'e4-alarm-pending.cgi', hazard => 'E4', what => 'alarm 2 never cancelled, $SIG{ALRM}/$SIG{CHLD} set',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "alarm set, pending=1\n", max_elapsed => 1.5 } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "alarm set, pending=1\n", max_elapsed => 1.5 } },
  ] },
{ script => 'e4-alarm-fires.cgi', hazard => 'E4', what => 'alarm fires during the request; the handler prints and exits (~1 s)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "waiting\ntimed out\n", max_elapsed => 3 } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "waiting\ntimed out\n", max_elapsed => 3 } },
  ] },
{ script => 'e5-rand.cgi', hazard => 'E5', what => 'RANDOM: rand session id differs on every request',
  compare => 'differs', registry => 'same (differs on every request, also across workers)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body_like => qr/\Asid=[a-z0-9]{25}\n\z/ } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body_like => qr/\Asid=[a-z0-9]{25}\n\z/ } },
    { method => 'GET', query => 'a=3', expect => { status => 200, body_like => qr/\Asid=[a-z0-9]{25}\n\z/ } },
  ] },
{ script => 'e5-srand42.cgi', hazard => 'E5', what => 'srand(42): the same number every time (and must not poison e5-rand)',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body_like => qr/\An=\d+\n\z/ } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body_like => qr/\An=\d+\n\z/ } },
  ] },
{ script => 'e6-pipe-child.cgi', hazard => 'E6', what => 'sendmail-style |cat pipe; background child with closed stdio does not hold the response',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'alice', expect => { status => 200, body => "mail lines=4 last=from alice\n", max_elapsed => 1.5 } },
    { method => 'GET', query => 'bob', expect => { status => 200, body => "mail lines=4 last=from bob\n", max_elapsed => 1.5 } },
  ] },
{ script => 'e7-leftovers.cgi', hazard => 'E7', what => 'lock on a global handle, object saved in DESTROY at exit',
  compare => 'exact', tmp => 'per-case',
  registry => 'same (package variables are put back after each run, so the lock handle is closed and DESTROY runs at the end of the request)',
  requests => [
    { method => 'GET', query => 'name=alice', expect => { status => 200, body => "lock=got\nsaved=(none)\n" } },
    { method => 'GET', query => 'name=bob', expect => { status => 200, body => "lock=got\nsaved=alice\n" } },
    { method => 'GET', query => 'name=carol', expect => { status => 200, body => "lock=got\nsaved=alice,bob\n" } },
  ] },
{ script => 'e8-umask-locale-select.cgi', hazard => 'E8', what => 'umask, locale, $| and select() changed and never restored',
  compare => 'exact',
  registry => 'same for umask/select/$| (reset list); locale is not in the reset list: numeric=C.UTF-8 from the 2nd request unless it is restored too',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "umask=022\nnumeric=C\nautoflush=0\nselected=STDOUT\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "umask=022\nnumeric=C\nautoflush=0\nselected=STDOUT\n" } },
  ] },
{ script => 'e9-memory-growth.cgi', hazard => 'E9', what => 'global cache appended per request',
  compare => 'exact',
  registry => 'same (package variables are put back after each run)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "cache=1 seen=1\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "cache=1 seen=1\n" } },
    { method => 'GET', query => 'a=3', expect => { status => 200, body => "cache=1 seen=1\n" } },
  ] },
{ script => 'e10-taint.cgi', hazard => 'E10', what => '#!perl -T: taint mode on, %ENV tainted',
  compare => 'exact', registry => 'same only in a worker started with -T (or a clear startup error, per issue 4)',
  requests => [
    { method => 'GET', query => 'abc', expect => { status => 200, body => "taint=1\nquery_tainted=1\nclean_tainted=0\n" } },
    { method => 'GET', query => 'xyz', expect => { status => 200, body => "taint=1\nquery_tainted=1\nclean_tainted=0\n" } },
  ] },
{ script => 'e10-taint-pipe.cgi', hazard => 'E10', what => '#!perl -T: PATH untainted by the script, then a pipe to a program',
  compare => 'exact', registry => 'same (runs in fork mode: -T)',
  requests => [
    { method => 'GET', query => 'from=a', expect => { status => 200, body => "TO THE PIPE: FROM=A\nafter\n", stderr => '' } },
    { method => 'GET', query => 'from=b', expect => { status => 200, body => "TO THE PIPE: FROM=B\nafter\n", stderr => '' } },
  ] },
{ script => 'e10-taint-backticks.cgi', hazard => 'E10', what => '#!perl -T: PATH untainted by the script, then backticks',
  compare => 'exact', registry => 'same (runs in fork mode: -T)',
  requests => [
    { method => 'GET', query => 'n=3', expect => { status => 200, body => "backticks: line 1\nline 2\nline 3\n", stderr => '' } },
    { method => 'GET', query => 'n=4', expect => { status => 200, body => "backticks: line 1\nline 2\nline 4\n", stderr => '' } },
  ] },
{ script => 'e10-taint-system.cgi', hazard => 'E10', what => '#!perl -T: PATH set and IFS, CDPATH, ENV, BASH_ENV deleted by the script, then system',
  compare => 'exact', registry => 'same (runs in fork mode: -T)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "from system\nafter\n", stderr => '' } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "from system\nafter\n", stderr => '' } },
  ] },
{ script => 'e10-taint-exec.cgi', hazard => 'E10', what => '#!perl -T: PATH untainted by the script, then exec',
  compare => 'exact', registry => 'same (runs in fork mode: -T)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "before exec\nfrom exec\n", stderr => '' } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "before exec\nfrom exec\n", stderr => '' } },
  ] },
{ script => 'e10-taint-rejected.cgi', hazard => 'E10', what => '#!perl -T: a tainted PATH, or a tainted command, still dies',
  compare => 'exact', registry => 'same (runs in fork mode: -T)',
  requests => [
    { method => 'GET', query => 'path', expect => { status => 200, body => "before\n",
        stderr_like => qr/\AInsecure \$ENV\{PATH\} while running with -T switch/ } },
    { method => 'GET', query => 'arg', expect => { status => 200, body => "before\n",
        stderr_like => qr/\AInsecure dependency in `` while running with -T switch/ } },
  ] },
{ script => 'e10-dash-l.cgi', hazard => 'E10', what => '#!perl -l: $\ = "\n" makes the header\'s empty line',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "line one\nline two\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "line one\nline two\n" } },
  ] },
{ script => 'e10-dash-w.cgi', hazard => 'E10', what => '#!perl -w at compile time: "will not stay shared" logged',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "first=one second=one\nW=1\n",
        stderr_like => qr/Variable "\$x" will not stay shared/ } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "first=one second=one\nW=1\n" } },
  ] },
{ script => 'e10-dash-C.cgi', hazard => 'E10', what => '#!perl -CS: UTF-8 STDOUT, no Wide character warning',
  compare => 'exact', registry => 'same',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "smile=\xe2\x98\xba\n", stderr => '' } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "smile=\xe2\x98\xba\n" } },
  ] },
{ script => 'e11-tempfile.cgi', hazard => 'E11', what => 'File::Temp UNLINK => 1 files are gone after each request',
  compare => 'exact', tmp => 'per-case', registry => 'same (needs File::Temp::cleanup() per request)',
  requests => [
    { method => 'GET', query => 'a=1', expect => { status => 200, body => "tempfiles=1\n" } },
    { method => 'GET', query => 'a=2', expect => { status => 200, body => "tempfiles=1\n" } },
    { method => 'GET', query => 'a=3', expect => { status => 200, body => "tempfiles=1\n" } },
  ] },
);
#>>>
