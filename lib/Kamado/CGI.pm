package Kamado::CGI;
use 5.024;
use strict;
use warnings;

use Cwd ();
use Scalar::Util ();
use Kamado ();    # (_mapping_fresh: XS)
use Kamado::CGI::Auto::Net;
use Kamado::CGI::Env;
use Kamado::CGI::Mapper;
use Kamado::CGI::Mode;
use Kamado::CGI::ModeFile;
use Kamado::CGI::Source;
use Kamado::CGI::Static;
use Kamado::ErrorResponse qw(error_response);
use Kamado::Log;
use Kamado::Options ();

# A directory of CGI scripts as a PSGI application: URLs are mapped to
# files as Apache does (SCRIPT_NAME, PATH_INFO, index scripts;
# Kamado::CGI::Mapper): under a ScriptAlias every file is a script, in a
# document root (legacy sites keep their images and CSS beside the
# scripts) files with a script extension are, and the others are served
# as static files (Kamado::CGI::Static).
#
#   Kamado::CGI->new(root => 'cgi-bin')->to_app
#   Kamado::CGI->new(root => 'htdocs', scripts => 'extension')->to_app

our @MODES = @Kamado::CGI::Mode::NAMES;
# requests whose mapping to a script is kept (past it, all are forgotten)
use constant MAX_CACHED => 1000;

sub new {
    my ($class, %args) = @_;
    my $root = $args{root} // die "Kamado::CGI: root is required\n";
    -d $root or die "Kamado::CGI: root '$root' is not a directory\n";
    my $mode = $args{mode} // Kamado::Options::default('cgi_mode');
    grep { $_ eq $mode } @MODES or die "Kamado::CGI: unknown mode '$mode' (known: @MODES)\n";
    my $real = Cwd::realpath($root);
    my $dbi = $args{persistent_dbi} // Kamado::Options::default('persistent_dbi');
    if ($dbi) {
        require Kamado::DBI;
        Kamado::DBI->enable(ping_interval => $args{dbi_ping_interval} // Kamado::Options::default('dbi_ping_interval'));
    }
    # the in-process modes' overrides of exit, require and do apply to code
    # compiled after them: installed now when they are the default, before
    # any script (or a module one uses) compiles; else when a .kamado-cgi
    # file first asks for them (Kamado::CGI::Mode), so that a worker whose
    # scripts all run in a process of their own keeps perl's built-ins
    Kamado::CGI::Mode::module($mode) if Kamado::CGI::Mode->in_process($mode);
    return bless {
        root          => $real,
        mode          => $mode,
        mapper        => Kamado::CGI::Mapper->new(
            root => $real, scripts => $args{scripts} // 'all',
            extensions => $args{extensions} // [split /,/, Kamado::Options::default('cgi_ext')],
            index => $args{index} // [qw(index.cgi index.pl index.html)],
            follow => $args{follow_links} // []
        ),
        static        => Kamado::CGI::Static->app,
        document_root => $args{document_root} // $real,
        pass_env      => $args{pass_env} // [],     # NAME or NAME=VALUE
        timeout       => $args{timeout} // Kamado::Options::default('cgi_timeout'),    # Apache's Timeout
        mode_files    => Kamado::CGI::ModeFile->new(root => $real, modes => \@MODES),
        cache         => {},
        dbi           => $dbi,
        dbi_ping      => $args{dbi_ping_interval} // Kamado::Options::default('dbi_ping_interval'),
    }, $class;
}

sub to_app {
    my ($self) = @_;
    return sub { $self->call(@_) };
}

# A script asked for again by the same SCRIPT_NAME and PATH_INFO runs
# from what its mapping found the first time (kept only for paths without
# a symbolic link: they need realpath each time) once what can have
# changed is looked at again: the script is the same plain file (one
# lstat: not changed, gone or made a link), the root and the directories
# on the way are still directories (not links) no one else may write (as
# the mapper's suexec rule), the index scripts before the one
# chosen are still absent, the .kamado-cgi files that decide its mode are
# unchanged. Else the path is mapped again.
sub call {
    my ($self, $env) = @_;
    # an encoded slash never names a file (Apache's AllowEncodedSlashes Off)
    return error_response(404) if index($env->{REQUEST_URI} // '', '%') >= 0 && $env->{REQUEST_URI} =~ m{\A[^?]*%2[fF]};
    my $hit = $self->{cache}{ ($env->{SCRIPT_NAME} // '') . "\0" . ($env->{PATH_INFO} // '') }
        // return $self->_map_request($env);
    # (the system calls and comparisons in XS, one call: _mapping_fresh,
    # xs/cgi/kd_cgi_mapping.c)
    return $self->_map_request($env)
        unless _mapping_fresh($hit, $self->{root})
        # (auto: the files the verdict read, the libraries it pulls in,
        # and a demotion by the run-time net)
        && (!$hit->{deps} || Kamado::CGI::Source::unchanged($hit->{deps}))
        && (!$hit->{verdict} || $hit->{verdict}{serial} == $hit->{serial});
    return $self->_run($env, $hit);
}

sub _map_request {
    my ($self, $env) = @_;
    my $path = $env->{PATH_INFO} // '';
    my $r = $self->{mapper}->resolve($path);
    my $action = $r->{action};
    return $self->_run($env, $self->_entry($env, $r)) if $action eq 'script';
    return $self->{static}->({ %$env, 'kamado.cgi.static' => [ $r->{file}, $r->{stat} ] })
        if $action eq 'static';
    if ($action eq 'slash') {
        # a directory without its slash: as mod_dir, send the client there;
        # slashes in a row are one (//NAME/ would be another host's URL)
        (my $uri = ($env->{SCRIPT_NAME} // '') . $path . '/') =~ s{/{2,}}{/}g;
        $uri .= "?$env->{QUERY_STRING}" if length($env->{QUERY_STRING} // '');
        my $res = error_response(301);
        push $res->[1]->@*, Location => $uri;
        return $res;
    }
    Kamado::Log->log($r->{level} // 'error', $r->{log}) if defined $r->{log};
    return error_response($r->{status});
}

# entry(ENV) -> what the requests to the script ENV's path maps to share
# (see _script), kept for that path as a request keeps it; undef when the
# path is not a script's.
sub entry {
    my ($self, $env) = @_;
    my $r = $self->{mapper}->resolve($env->{PATH_INFO} // '');
    return $r->{action} eq 'script' ? $self->_entry($env, $r) : undef;
}

# preload(prefix => PREFIX): every script under the root made ready now,
# as its mode keeps scripts warm (Kamado::CGI::Preload; --preload-cgi,
# in the generation before the workers fork), mounted at PREFIX; logged.
sub preload {
    my ($self, %args) = @_;
    require Kamado::CGI::Preload;
    my $count = Kamado::CGI::Preload->run($self, $args{prefix} // '');
    # (the generation's files for the in-process runs: each worker has its own)
    Kamado::CGI::InProcess::Run::release() if defined &Kamado::CGI::InProcess::Run::release;
    my @said = map { "$count->{$_} $_" } grep { $_ ne 'failed' && $count->{$_} } sort keys %$count;
    # (fork mode's are started by each worker)
    Kamado::Log->info("--preload-cgi $self->{root}: " . (@said ? join(', ', @said) : 'no script to compile')
        . ($count->{failed} ? "; $count->{failed} could not be (see above)" : ''));
    return $count;
}

# The entry of the script the mapper found ($r), kept for the request's
# path when no link is on the way.
sub _entry {
    my ($self, $env, $r) = @_;
    my $entry = $self->_script($env, $r->{file}, $r->{path_info}, $r->{segments}, $r->{stat});
    if ($r->{cacheable}) {
        %{ $self->{cache} } = () if keys %{ $self->{cache} } >= MAX_CACHED;
        # (packed, not joined: comparing them makes no number a string)
        $entry->{lstat} = pack 'j5', $r->{stat}->@[0, 1, 2, 7, 9];
        $entry->{dirs} = $r->{dirs};
        $entry->{absent} = $r->{absent};
        $self->{cache}{ ($env->{SCRIPT_NAME} // '') . "\0" . ($env->{PATH_INFO} // '') } = $entry;
    }
    return $entry;
}

# What the requests to the script FILE share, made once: { file, mode
# (the module of its mode, Kamado::CGI::Mode), error (a .kamado-cgi that
# cannot be used), mode_files and mode_key (those files, and what tells
# them changed), args (what the mode's response gets: the script's hash,
# which runners only read, and its fixed CGI variables among it) }.
sub _script {
    my ($self, $env, $file, $info, $segments, $stat) = @_;
    my ($dir, $base) = $file =~ m{\A(.*)/([^/]+)\z};
    my %script = (
        filename  => $file,
        key       => Kamado::CGI::Source::stat_key(@$stat),    # (a changed script is compiled again)
        dir       => $dir,
        name      => ($env->{SCRIPT_NAME} // '') . join('', map { "/$_" } @$segments),
        path_info => $info,
        nph       => $base =~ /^nph-/ ? 1 : 0,
    );
    # (shared by the requests to the script: a runner that wrote to it would die)
    Internals::SvREADONLY($script{$_}, 1) for keys %script;
    # (as Apache's ScriptAlias /cgi-bin/ /dir/: both with their slash)
    my $cgi_env = Kamado::CGI::Env->fixed(script => \%script, document_root => $self->{document_root},
        context_prefix => ($env->{SCRIPT_NAME} // '') . '/', context_root => "$self->{root}/",
        pass => $self->{pass_env});
    # (the files' key before they are read: a change in between is seen next time)
    my $mode_files = $self->{mode_files}->files($dir);
    my $mode_key = Kamado::CGI::ModeFile::key($mode_files);
    my ($mode, $error, $why) = Kamado::CGI::Mode->for($file, default => $self->{mode}, mode_files => $self->{mode_files});
    # (the modes' arguments but the env, kept with the mapping: the
    # in-process modes put the CGI variables in %ENV straight from the
    # script's fixed part and the PSGI env, no hash between)
    my $args = $mode && { mode => $mode->NAME, script => \%script, fixed => $cgi_env,
        timeout => $self->{timeout}, redirect => $self->_redirect,
        dbi => $self->{dbi} ? $self->{dbi_ping} : undef };
    my %deps = %{ ($why && $why->{files}) // {} };
    delete $deps{$file};    # (the script itself: its lstat is looked at anyway)
    my $v = $why && $why->{auto};
    return { file => $file, mode => $mode, args => $args, error => $error, mode_files => $mode_files,
        mode_key => $mode_key, deps => %deps ? \%deps : undef, why => $why && $why->{reason},
        $v ? (verdict => $v, serial => $v->{serial}, packages => $v->{packages},
            net => $mode && Kamado::CGI::Mode->in_process($mode->NAME) && $v->{packages} && @{ $v->{packages} }) : () };
}

sub _run {
    my ($self, $env, $entry) = @_;
    if ($entry->{error}) {
        Kamado::Log->error($entry->{error});
        return error_response(500);
    }
    $env->{'kamado.cgi_mode'} = $entry->{args}{mode};
    # (its handles are DBI's: none before DBI is loaded)
    Kamado::DBI::begin_request() if $self->{dbi} && $INC{'DBI.pm'} && $INC{'Kamado/DBI.pm'};
    # (auto mode's run-time net, around a run in the worker)
    my $net = $entry->{net} && Kamado::CGI::Auto::Net->before($entry);
    my $res = $entry->{mode}->response($entry->{args}, $env);
    Kamado::CGI::Auto::Net->after($entry, $net) if $net;
    _dbi_request_end($env) if $self->{dbi} && $INC{'DBI.pm'} && Kamado::DBI::in_use();
    return $res;
}

# The kept DBI handles the request used are reset (Kamado::DBI) once the
# response is sent, or now on a server without psgix.cleanup.
sub _dbi_request_end {
    my ($env) = @_;
    return push $env->{'psgix.cleanup.handlers'}->@*, \&Kamado::DBI::cleanup if $env->{'psgix.cleanup'};
    Kamado::DBI::end_request();
}

# (env, path) -> the response for that path (one sub per directory, not
# a closure made for every request; weak: no cycle)
sub _redirect {
    my ($self) = @_;
    return $self->{redirect} //= do {
        Scalar::Util::weaken(my $cgi = $self);
        sub { $cgi->_internal_redirect(@_) };
    };
}

# Location: /local/path from a script: Apache serves that path instead,
# as a GET without a body. Inside this directory it is served here; a
# path elsewhere on the site becomes a 302 (this app does not see the
# rest of the site) to that path. Apache takes //host/x as the path
# /host/x (ap_parse_uri drops the extra slashes): never another site,
# and neither is /\host/x, which browsers read as //host/x.
sub _internal_redirect {
    my ($self, $env, $location) = @_;
    $location =~ s{\A[/\\]+}{/};
    my ($path, $query) = split /\?/, $location, 2;
    my $prefix = $env->{SCRIPT_NAME} // '';
    if (($env->{'kamado.cgi.redirects'} // 0) < 10 && index($path, "$prefix/") == 0) {
        my %new = (%$env,
            REQUEST_METHOD => 'GET', PATH_INFO => substr($path, length $prefix), QUERY_STRING => $query // '',
            REQUEST_URI => $location, CONTENT_LENGTH => undef, CONTENT_TYPE => undef,
            'kamado.cgi.redirects' => ($env->{'kamado.cgi.redirects'} // 0) + 1);
        delete @new{qw(CONTENT_LENGTH CONTENT_TYPE)};
        return $self->call(\%new);
    }
    my $res = error_response(302);
    push $res->[1]->@*, Location => $location;
    return $res;
}

1;
__END__

=head1 NAME

Kamado::CGI - a directory of CGI scripts as a PSGI application

=head1 SYNOPSIS

    kamado --cgi-bin cgi-bin                 # mounted at /cgi-bin/
    kamado --cgi-bin /app=/srv/app app.psgi  # beside a PSGI app

    kamado --cgi-docroot /=htdocs            # scripts beside static files

    use Plack::Builder;
    builder {
        mount '/cgi-bin' => Kamado::CGI->new(root => 'cgi-bin')->to_app;
        mount '/'        => Kamado::CGI->new(root => 'htdocs', scripts => 'extension')->to_app;
    };

=head1 DESCRIPTION

URLs map to files as under Apache: the longest leading part of the path
that names a file in the root is the script (C<SCRIPT_NAME>), the rest is
C<PATH_INFO> (and C<PATH_TRANSLATED>); a directory is answered by its
first index file (C<index.cgi>, C<index.pl>, then C<index.html>, which
under C<scripts =E<gt> 'all'> is a script like any other file, as under
a ScriptAlias), or 403 without one (never a listing), and a directory
named without its trailing slash gets a 301 to it.

Which files are scripts (L<Kamado::CGI::Mapper>): with C<scripts =E<gt>
'all'> (the default, C<--cgi-bin>, Apache's C<ScriptAlias>) every file
is, and nothing under the root is ever sent as content: the source of a
script is never served. With C<scripts =E<gt> 'extension'>
(C<--cgi-docroot>, Apache's C<AddHandler cgi-script> with C<Options
ExecCGI>) files whose name ends in one of C<extensions> (C<cgi> and
C<pl> by default, any case) are, and other files are served as static
files (L<Kamado::CGI::Static>: C<ETag>, 304, byte ranges), except what
could be a script's source: 403. A script that is not executable is a
500 and a log line, as under Apache; so is one with neither a C<#!> line
nor the look of a program, unless its name has a script extension (an
executable data file is never run as perl). A path with a segment starting with
a dot (dotfiles, C<.> and C<..>, however encoded) is 403; an encoded
slash (C<%2F>) is 404, as Apache's C<AllowEncodedSlashes Off>; a symbolic
link leading out of the root is 403, with a warning naming the link and
its target, unless it leads into a directory C<follow_links>
(C<--cgi-follow-links>) names; what does not exist is 404.

How a script runs follows its first line: C<#!> naming perl, or no C<#!>
line, runs in the chosen mode; another interpreter (C<#!/bin/sh>) or a
program runs as in exec mode.

A worker keeps what the mapping of a URL to a script found (at most 1000
URLs), and on each request looks again only at what can change: the
script (one C<lstat>), the directories on the way, the index scripts
before the one chosen and the F<.kamado-cgi> files; a path with a
symbolic link on the way is mapped afresh every time.

=head1 METHODS

=over

=item new(root => DIR, %OPTIONS)

The application for the scripts under DIR. OPTIONS: C<mode> (below;
C<--cgi-mode>'s default), C<scripts> (C<all> or C<extension>),
C<extensions> (a list), C<index> (the index files, in order),
C<document_root>, C<pass_env> (C<NAME> or C<NAME=VALUE>, as C<--cgi-env>),
C<timeout> (C<--cgi-timeout>), C<persistent_dbi>, C<dbi_ping_interval>
and C<follow_links> (the directories links may lead into, C<--cgi-follow-links>).
Values not given are the defaults of L<kamado>'s options. Dies naming
what is wrong with the root or the mode.

=item to_app

The PSGI application (a code reference calling C<call>).

=item call(\%ENV)

Answers one request: the script's response, a static file, or the error
(301, 403, 404, 500) as above.

=item entry(\%ENV)

What the request's path maps to, when it is a script's (the compiled or
zygote state its requests share), or undef; Kamado's runner uses it.

=item preload(prefix => PREFIX)

Makes every script under the root ready now, as its mode keeps scripts
(C<--preload-cgi>, in the generation before the workers fork), and logs
how many; returns the counts by kind.

=back

=head1 MODES

=over

=item auto (the default)

Each script runs in the fastest of the modes below that runs it as plain
CGI would: kamado check's verdict for it (L<Kamado::Check>, C<kamado
check>), made when the script is first mapped (with C<--preload-cgi>, in
the generation before the workers fork, which inherit it) and made again
when the script or a file it pulls in changes (the libraries it requires,
the modules of its tree). Each verdict is logged once with its reason; a
script whose new verdict is a slower mode (an edit made it hazardous) is
logged as a warning, and its next request runs in that mode. A script
that does not compile runs in fork mode (its error logged as fork mode
logs it), one for another interpreter in exec mode. A F<.kamado-cgi>
file, or an explicit C<mode>, wins. A verdict costs a compile of the
script in a child perl (0.1 to 0.3 s for a 4,000-line script), once per
version of the script and per worker, or once for all with
C<--preload-cgi>.

=item fork

Each worker starts, per script, a perl that compiles the script as its
main program (as CGI does: package C<main>, C<__END__> and C<DATA>, the
C<#!> switches, named subs sharing file-scoped lexicals) and then waits
(L<Kamado::CGI::Process::Zygote>). Each request is run by a fork of it, which
gets the request's STDIN, STDOUT, STDERR and environment, runs the
script once and exits: globals, C<exit> (inside C<eval> too), END
blocks, C<%SIG>, C<alarm>, cwd, umask and open handles are as fresh as
under CGI. A changed script (inode, size or mtime) is compiled again on
its next request; one that does not compile is a 500 with perl's error in
the log, tried again on the next request. What happens at compile time
happens once per compile, not per request: C<BEGIN> blocks, and constants
such as C<use constant STARTED =E<gt> time>. A script run by another
interpreter (C<#!/bin/sh>) runs as in exec mode.

=item exec

The script runs as under Apache's mod_cgi: a new perl per request, with
the switches of its C<#!> line, in its own directory, with exactly the CGI
meta-variables (L<Kamado::CGI::Env>) as its environment, the request body
on STDIN, its output streamed to the client as it prints it, and what it
writes to STDERR passed to the error log line by line, each line with
the script's path and the request id before it (see L</ERRORS>). This is
the reference the persistent modes are measured against.

=item registry

The script is compiled once per worker and runs inside it, as under
ModPerl::Registry, without what Registry gets wrong
(L<Kamado::CGI::InProcess::Run>): C<exit> ends the script wherever it is
called (inside C<eval> too) without calling its C<$SIG{__DIE__}>; STDIN,
STDOUT and STDERR are real descriptors, so C<system>, pipes, C<format>
and C<sysread> work; the script runs in its directory with exactly the
CGI environment; named subs see each run's file-scoped C<my> variables;
package variables, C<%SIG>, C<alarm>, special variables (C<$_>, C<$/>, C<$0>...), C<@INC>, the
library entries of C<%INC>, umask, locale, C<select>, the STDIO layers,
CGI.pm's globals (with the script's own C<use CGI> pragmas) are put back
after each run, its END blocks run at the end of each run (those of its
own modules too; a module from the worker's library keeps its END block
for the worker's end: DBI's would disconnect every handle the worker
keeps) and the files it
left open are closed; a package-less library (C<require './lib.pl'>) is
compiled into the package of each script that requires it, and its top
level runs again on each request. A script is compiled again when it or a
library it loaded changes. A worker keeps at most 200 compiled scripts
(C<$Kamado::CGI::InProcess::Scripts::MAX_COMPILED>); past it, the least recently
used is discarded with its packages and compiled again when it is next
asked for. A script that calls C<exit> in a C<BEGIN> block gets what it
printed sent, and is compiled (and exits) again on the next request, as a
CGI process would.

What stays different from plain CGI, checked by t/cgi-runner/fixtures.t:
the output is sent when the script ends, not as it prints (a progress page
needs fork mode); C<__PACKAGE__> is the script's own package, not C<main>
(though what the script calls C<main::> is its own while it runs, and
C<caller> shows no frame past its top, so C<main() unless caller> runs);
C<$^S> is true (the server runs the app inside an eval), so a
C<__DIE__> handler of the script's own that checks it stays quiet and
the client gets a 500 (CGI::Carp's fatalsToBrowser works: it is asked
whether the script itself is in an eval); what happens at
compile time happens once per worker: C<BEGIN>, C<use constant X =E<gt>
time>, C</o> patterns, C<state> variables. A script whose C<#!> line has a
switch other than C<-w> and C<-l> (C<-T>, C<-C>...), or that another
interpreter runs, runs in fork mode. Only C<CORE::exit> and C<POSIX::_exit>
in the script itself (not in a child it forked) still end the worker, as
under ModPerl::Registry: the client gets no answer and the server starts
another worker. C<--cgi-timeout> limits the whole run
(no output can be watched from inside the worker): see L</TIMEOUT>.

One kind of value is kept from one request to the next, for scripts
written for a persistent perl (PersistentPerl, SpeedyCGI, mod_perl) that
keep their database connection in a package variable (C<our $dbh;
$dbh = DBI-E<gt>connect(...) unless defined $dbh>): a package scalar
that holds, when the run ends, a database handle (an object of class
C<DBI::db>, or of a class derived from it) or a L<PersistentPerl> (or
L<CGI::SpeedyCGI>) object keeps it. Only scalars, only those objects:
arrays and hashes holding them, statement handles (C<DBI::st>), other
objects and plain data are put back as always, and a C<my> variable at
file scope is new in each run. With L<Kamado::DBI> on (the default) the
handle is reset at the end of each request like the ones it keeps itself
(transaction rolled back, session reset), and a handle it closes then
(SQLite, or one that could not be reset) is not kept: the variable is
put back, and the script connects again as under CGI. With
C<--no-persistent-dbi> the handle is as the run left it (an open
transaction included), as PersistentPerl and mod_perl keep it.

=item perlrun

As registry, but the script and its libraries are compiled for each
request and its package deleted afterwards, as ModPerl::PerlRun does:
C<BEGIN>, constants, C</o> and C<state> are then as under CGI, at the
cost of a compile per request.
Nothing of the script's package is kept, a database handle in C<our
$dbh> neither: the package is deleted.

=back

=head1 PRELOADING

    $cgi->preload(prefix => '/cgi-bin');

makes every script under the root ready now, as its mode keeps scripts
warm (L<Kamado::CGI::Preload>), for the URLs under I<prefix> where the
app is mounted: C<--preload-cgi> calls it in the generation before the
workers fork. Registry scripts are compiled (the workers share them, and
their first request compiles nothing), perlrun scripts compiled once and
let go (the modules they use stay loaded), fork mode's scripts noted so
that each worker starts their zygotes before it accepts (a zygote is its
worker's own); exec mode's are left alone. Compile errors are logged,
naming the script, which then answers 500 as it would have. What a
registry script opens while it compiles (in a C<BEGIN> block or a module
it uses) is then shared by the workers, as with a preloaded app: a
connection belongs in the run, or in C<--worker-init>.

=head1 PERSISTENTPERL AND SPEEDYCGI SCRIPTS

Scripts written for PersistentPerl or SpeedyCGI run unchanged. A
C<#!/usr/bin/perperl> or C<#!/usr/bin/speedy> line is a perl line: its
perl switches count (C<#!/usr/bin/perperl -w -- -t300> is C<-w>), its
PersistentPerl options (after C<-->) are ignored; Kamado's own options
govern the workers. Their API is L<PersistentPerl> (and
L<CGI::SpeedyCGI>), shipped with Kamado in place of the real modules.
C<i_am_perperl> is true in the fork, registry and perlrun modes, false in
exec mode and outside Kamado. A cleanup (C<register_cleanup>) runs at
the end of each request. A shutdown handler runs when the script's state
ends: in registry mode when its worker ends (recycled, stopped by TERM,
replaced after HUP, retired when idle, or after the script's
C<shutdown_next_time>), within C<--graceful-timeout> (a handler still
running then is stopped, and the log says so), not when it is stopped
at once (INT); in perlrun
mode at the end of each request (the script's package is deleted then);
in fork mode when the request's process exits, at the end of each
request. C<shutdown_next_time> and C<shutdown_now> make a registry or
perlrun worker exit once the response is sent (a new one replaces it);
C<shutdown_now> ends the script where it is called, as C<exit> does. In
fork mode every request's process ends anyway, and they change nothing
else.

=head1 MODES PER DIRECTORY AND PER SCRIPT

A file named F<.kamado-cgi> in any directory of the tree sets the mode
of that directory and those below it, or of some of its scripts
(L<Kamado::CGI::ModeFile>); the nearest file decides:

    # all of this directory, and below
    mode registry
    # but these two run in fork mode
    mode fork progress.cgi nph-chat.cgi

A file with an error (an unknown mode, a line that is not C<mode>) makes
the scripts it governs answer 500, with the file and line in the log.

=head1 DATABASE HANDLES

With C<persistent_dbi> (the default; C<kamado --no-persistent-dbi> turns
it off), C<< DBI->connect >> in a script run by the registry or perlrun
mode returns the worker's kept handle (in fork mode, the zygote's, lent
to each child in turn: L<Kamado::DBI::Lend>) for the same data source, user,
password and connection attributes, as under mod_perl with Apache::DBI:
checked before reuse (C<dbi_ping_interval>, C<--dbi-ping-interval>),
replaced when the server closed it, C<disconnect> a no-op. After the
response is sent (C<psgix.cleanup>), whatever the request left is undone:
open statements finished, the transaction rolled back, the handle's
attributes and the server session reset (MariaDB/MySQL connection reset,
PostgreSQL C<DISCARD ALL>; an SQLite handle is closed).
L<Kamado::DBI/What is kept and what is reset> has the details. A handle is
never shared across a fork. The routing of C<< DBI->connect >> is the
process's: other code in it that connects (a PSGI app beside the
scripts) gets kept handles too, and needs the reset after its own
requests: C<kamado> wraps its app in L<Plack::Middleware::Kamado::DBI>;
an app built with L<Plack::Builder> around C<Kamado::CGI> should
C<enable 'Kamado::DBI'>. Exec mode starts a new perl per request: it
cannot keep a handle. A module's C<END> block (DBI's, which disconnects
every handle) runs when the worker ends, not after each run, as if the
worker had loaded the module before any script.

=head1 TIMEOUT

A script that writes nothing for C<timeout> seconds (C<--cgi-timeout>,
default 300, Apache's C<Timeout>) is stopped (TERM to its process group,
KILL 2 seconds later) and logged; the client gets 504 if nothing was sent
yet. No script can hold a worker for longer. The server's
C<--request-timeout> stops it the same way (KILL 1 second after TERM),
with a 504 if nothing was sent.

The response is complete when the script's output closes: a script that
closes STDOUT and STDERR and goes on running does not hold the worker,
which reaps it later and stops its group if it is still there
C<timeout> seconds on (L<Kamado::CGI::Process::Reaper>). A worker that exits stops
the groups of its scripts still running, and the processes a worker
killed outright leaves behind are stopped by its generation: no script
process outlives the server.

In the in-process modes the limit is on the whole run: at C<timeout>
seconds the script gets a die (a 504 if it had not written its header
yet), and a script that catches it or is stuck in C is ended with its
worker 2 seconds later (the server starts another). A shorter
C<--request-timeout> of the server wins.

=head1 CGI OUTPUT

As mod_cgi: header lines up to the first empty line; C<Status:> sets the
status (its reason phrase is Kamado's own); C<Location:> with an absolute
URL and no C<Status:> is a 302, with a local path an internal redirect (a
new GET; served here when the path is inside this directory, else a
302 to that path; C<//host/x> is the path C</host/x>, as Apache reads it,
never another site); a line that is not a header, or output that ends before the empty
line, is a 500 and a log line naming the script. C<nph-> scripts write
the status line themselves; Kamado keeps their status and headers but
frames the response itself (its own C<Date>, keep-alive).

=head1 ERRORS

What a script writes to STDERR (C<warn>, C<die>, perl's compile errors
and warnings) is the script's own: it reaches the server's STDERR, so
the C<--error-log> file or the journal, one whole line at a time, in
every mode, each line with the script's path and the request id before
it, as Apache puts the script's path on each (not Kamado's own prefix:
no time or level, the line is the script's):

    /srv/cgi-bin/board.cgi [6b0a45eaac218-26329-2]: Use of uninitialized value $name in concatenation (.) at /srv/cgi-bin/board.cgi line 12.

A line written while the script is compiled before any request
(C<--preload-cgi>, fork mode's zygote) has no request id. The server's own
lines about a script (it could not be compiled, a malformed head, a
C<--cgi-timeout>, a file refused) are L<Kamado::Log> lines naming the
script, with the request id. Each run sees its request id as
C<UNIQUE_ID>, the name mod_unique_id gives it under Apache.

=cut
