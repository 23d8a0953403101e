package Kamado::CGI::InProcess::Run;
use 5.024;
use strict;
use warnings;

# the errors a worker's file keeps before it is emptied
use constant MAX_KEPT => 1 << 20;
use Kamado ();
use Kamado::CGI::Output;
use Kamado::CGI::Process::Relay;    # (body_input)
use Kamado::CGI::Process::Reaper;
use Kamado::ErrorResponse qw(error_response);
use Kamado::CGI::InProcess::Require;
use Kamado::CGI::InProcess::Scripts;
use Kamado::CGI::InProcess::Persistent;
use Kamado::CGI::InProcess::Snapshot;
use Kamado::CGI::InProcess::World;
use Kamado::Log;

# Modes "registry" and "perlrun": a script runs inside the worker, as
# ModPerl::Registry and ModPerl::PerlRun run it, with what they get wrong
# put right where it can be (doc/CGI-HAZARDS.md, section 7's checklist):
#
# - the script is compiled into its own package, as the body of a named
#   sub, in its directory, with its #! -w at compile time; registry keeps
#   it (compiled again when it or a library it loaded changes), perlrun
#   compiles it for each request and deletes its package afterwards;
# - exit ends the script wherever it is called, past the script's own
#   evals, without calling its $SIG{__DIE__}; in a child the script
#   forked, it ends the child (Kamado::CGI::InProcess::Overrides, with exec and
#   caller);
# - STDIN, STDOUT and STDERR are real descriptors 0, 1 and 2 for the
#   request (the body, a file collecting the output, a file collecting
#   the errors), so system, pipes, format and sysread work as under CGI
#   (Kamado::CGI::InProcess::World);
# - per request: %ENV is the CGI environment, $_ $/ $\ $, $" $; $^W $0 $^T
#   @ARGV @INC are fresh, srand, CGI.pm's globals with the script's own
#   `use CGI` pragmas, the script's compile-time %SIG handlers, DATA from
#   its start, its END blocks run; afterwards %SIG, alarm, umask, cwd,
#   locale, select, the STDIO handles and the library entries of %INC are
#   put back, and File::Temp's exit-time files removed;
# - require/do of a library file compile it into the script's package
#   (Kamado::CGI::InProcess::Require);
# - named subs see each run's file-scoped lexicals (share_lexicals, XS),
#   package variables are put back after each run (Kamado::CGI::InProcess::Snapshot)
#   but for a database handle or a PersistentPerl object in a package
#   scalar, which registry keeps (scripts written for a persistent perl
#   keep their connection so), main:: is the script's own while it runs,
#   and caller shows no frame past the script's top;
# - the PersistentPerl API's handlers run when the script's state ends
#   (Kamado::CGI::InProcess::Persistent).
#
# What stays different from plain CGI is documented per hazard in
# t/cgi/cases.pl and in Kamado::CGI: __PACKAGE__ is not main, $^S is true,
# the output is sent when the script ends, and in registry mode what
# happens at compile time happens once. Scripts that need what only a
# process of their own gives (a #! switch other than -w and -l, such as
# -T; another interpreter) run in fork or exec mode instead
# (Kamado::CGI::Mode).

# (perl's require, do, exit, caller and exec overridden for the code
# compiled from here on: Kamado::CGI::InProcess::Overrides)
use Kamado::CGI::InProcess::Overrides;
use Kamado::CGI::InProcess::Compile;

our $timed_out;    # the run was stopped by --cgi-timeout
our $timing = 0;   # the --cgi-timeout of the run the timers are set for
my $worker_usr2;   # the worker's own USR2 handler (see _on_usr2)

my ($worker, %keep);    # the worker's pid and its kept files (_kept)
# the worker's own DATA (script/kamado's POD) is not the scripts' main::DATA
close main::DATA if defined fileno main::DATA;

# respond(MODE, ARGS, ENV) -> a PSGI response for the psgi env ENV (the
# modes' response: MODE is Kamado::CGI::Mode::Registry or ::PerlRun, whose
# policy it follows: keeps_compiled, compile_env). ARGS, kept
# by Kamado::CGI for each script's URL (not a hash made every request):
# { mode => registry or perlrun, script => {filename, key, dir, nph},
# fixed => the script's fixed CGI variables (Kamado::CGI::Env::fixed),
# timeout => --cgi-timeout, redirect => sub (env, path) ->
# PSGI response }
sub respond {
    my ($mode, $args, $env) = @_;
    my $s = Kamado::CGI::InProcess::Scripts::get($mode, $args) // return error_response(500);
    # the request's body (or nothing), and the worker's files for the
    # output and the errors
    my $keep = $worker && $worker == Kamado::current_pid() ? \%keep : _kept();
    my $body = ($env->{CONTENT_LENGTH} // 0) > 0 || defined $env->{HTTP_TRANSFER_ENCODING};
    my $in = $body ? Kamado::CGI::Process::Relay::body_input($env) : $keep->{null};
    # (set by the timeout, for _response: a 504 when no head was written)
    local $timed_out = 0;
    my $compiled = _compile_and_run($s, $args, $keep, $in, $env, 1);
    my $exited = delete $s->{exited};
    # (PersistentPerl's shutdown_next_time or shutdown_now: the worker
    # exits once this response is sent)
    $env->{'psgix.harakiri.commit'} = 1
        if $Kamado::CGI::InProcess::Persistent::exit && Kamado::CGI::InProcess::Persistent::exit_asked();
    return $compiled || $exited ? _response($keep->{out}, $args, $env) : error_response(500);
}

# preload(MODE, ARGS, ENV): the script compiled now, not run (--preload-cgi:
# in the generation, before the workers fork, which then share it); ENV
# is the PSGI env of a GET of it, for what its compile sees of the CGI
# environment. Registry keeps it, as its first request would have; for
# perlrun, which compiles per request, it is compiled and let go, so that
# the modules it uses are loaded here. Its errors are logged. Returns
# whether it compiled; undef when registry keeps as many scripts as it
# may already (Kamado::CGI::InProcess::Scripts).
sub preload {
    my ($mode, $args, $env) = @_;
    return undef if Kamado::CGI::InProcess::Scripts::full($mode, $args);
    my $s = Kamado::CGI::InProcess::Scripts::get($mode, $args) // return 0;
    return 1 if $s->{code};
    my $keep = _kept();
    local $timed_out = 0;
    my $compiled = _compile_and_run($s, $args, $keep, $keep->{null}, $env, 0);
    delete $s->{exited};
    Kamado::CGI::InProcess::World::read_output(fileno $keep->{out});
    return $compiled;
}

# The generation's files (_kept) closed once it has preloaded: each
# worker opens its own.
sub release {
    return unless $worker;
    close $_ for grep { ref } values %keep;
    %keep = ();
    undef $worker;
    $SIG{USR2} = $worker_usr2 // 'DEFAULT' if ref $SIG{USR2} && $SIG{USR2} == \&_on_usr2;
}

# Compiles the script if it is not yet and, when $run, runs it, in one
# stay in the script's world, on the files $keep with STDIN on $in, as it
# would run under CGI: in its directory, with the CGI environment and its
# locale, STDIO on the request's descriptors 0, 1 and 2, fresh special
# variables; and puts the worker back as it was, whatever the script
# did. Logs what it wrote to STDERR. Returns whether it is compiled
# ($s->{exited} says it called exit while compiling: what it printed is
# its answer).
sub _compile_and_run {
    my ($s, $args, $keep, $in, $env, $run) = @_;
    my $file = $s->{file};
    # (descriptors, %ENV, the locale it asks for, cwd, $0, $/ $\ $, $" $;
    # $! $? $@ and @INC, $^T, @ARGV and $_ (a script's while (<STDIN>)
    # must not change the worker's); the worker's signals, umask and
    # selected handle noted: in XS, one call each way; and the C
    # library's zone when the run had a TZ, put back)
    # (#! -l sets $\, -w $^W, for the compile and the run; the output
    # and error files made ready first)
    my $closed = Kamado::CGI::InProcess::World::world_enter(
        fileno $in, fileno $keep->{out}, fileno $keep->{err}, $env, $args->{fixed},
        $s->{dir}, $file, $s->{line_ends}, $s->{warnings}, MAX_KEPT
    );
    Kamado::CGI::InProcess::World::reopen_std($closed) if $closed;
    {
        local $Kamado::CGI::InProcess::Require::SCRIPT = $s;
        local @Kamado::CGI::InProcess::Require::INC_ADDED = ();
        local $Kamado::CGI::InProcess::Overrides::SCRIPT = $s;
        local $Kamado::CGI::InProcess::Overrides::RUNNING = Kamado::current_pid();
        no warnings 'once';
        local $PersistentPerl::RUNNER = $s->{runner};
        # (the script's errors are caught inside; this is for the runner's)
        eval {
            # in the environment its mode compiles it in (compile_env)
            if ($s->{code}) {}
            elsif (my $compile_env = $s->{mode}->compile_env($args->{fixed})) {
                local %ENV = %$compile_env;
                Kamado::CGI::InProcess::Compile::compile($s);
            } else {
                Kamado::CGI::InProcess::Compile::compile($s);
            }
            _run($s, $keep, $args->{timeout}) if $s->{code} && $run;
            1;
        } or Kamado::Log->error("$s->{file}: $@");
        # a child the script forked, back here without exit
        Kamado::CGI::InProcess::Overrides::child_exit(0)
            if Kamado::current_pid() != $Kamado::CGI::InProcess::Overrides::RUNNING;
        # the server's timers back (borrowed by _run), however it ended
        Kamado::return_request_timer();
        alarm 0;
        # what the script forked and left, once exited: reaped (init's
        # part under CGI), here and at the next CGI request
        Kamado::CGI::Process::Reaper::sweep();
        # library files (not modules) are the script's business, not %INC's
        delete @INC{@Kamado::CGI::InProcess::Require::INC_ADDED} if @Kamado::CGI::InProcess::Require::INC_ADDED;
    }
    # (and what the run wrote to STDERR)
    ($closed, my $errors, my @changed) = Kamado::CGI::InProcess::World::world_leave($keep->{cwd});
    Kamado::CGI::InProcess::World::reopen_std($closed) if $closed;
    # (only what the script changed: assigning %SIG is a sigaction each)
    if (@changed) {
        my %changed = @changed;
        $SIG{$_} = $changed{$_} for keys %changed;
    }
    my $compiled = $s->{code} ? 1 : 0;
    my $exited = $s->{exited} = delete $s->{exited_compiling};
    # (what the script wrote to STDERR, perl's errors and warnings among
    # it: the server's STDERR gets it, each line with the script's path
    # and the request id)
    if (length $errors) {
        # ("will not stay shared" of a file-scoped variable, through the
        # script's own __WARN__ handler: the wrapper's, not the script's;
        # Kamado::CGI::InProcess::Compile)
        if (my $shared = delete $s->{shared}) {
            $errors =~
                s/^.*\bVariable "(.+?)" will not stay shared at \Q$file\E line \d+\.\n/$shared->{$1} ? '' : $&/gme;
        }
        Kamado::Log->script_stderr($file, $env->{'kamado.request_id'}, $errors);
    }
    Kamado::Log->error("$file: ran for more than $args->{timeout} s (--cgi-timeout): stopped") if $timed_out;
    Kamado::Log->error("$file: could not be compiled (its errors are above)") unless $compiled || $exited;
    Kamado::CGI::InProcess::Scripts::discard($s) if !$compiled || !$s->{kept};
    return $compiled;
}

# The worker's files for the runs (Kamado::CGI::InProcess::World::files), opened
# once per worker, and its USR2 handler put aside for _on_usr2.
sub _kept {
    return \%keep if $worker && $worker == Kamado::current_pid();
    $worker = Kamado::current_pid();
    %keep = Kamado::CGI::InProcess::World::files()->%*;
    # (a child a script forked has it already)
    $worker_usr2 = $SIG{USR2} unless ref $SIG{USR2} && $SIG{USR2} == \&_on_usr2;
    $SIG{USR2} = \&_on_usr2;
    return \%keep;
}

# Whether the running script is inside an eval of its own (what $^S says
# under CGI): an eval frame below the script's wrapper.
sub _script_in_eval {
    my $wrapper = "$Kamado::CGI::InProcess::Overrides::SCRIPT->{package}::__kamado_cgi_script";
    for (my $i = 1; my @frame = CORE::caller($i); $i++) {
        return 0 if $frame[3] eq $wrapper;
        return 1 if $frame[3] eq '(eval)';
    }
    return 1;    # (not below the wrapper: compiling, or not the script's)
}

sub _run {
    my ($s, $keep, $timeout) = @_;
    # a seed of its own, as a new perl takes one
    Kamado::CGI::InProcess::World::fresh_seed(fileno $keep->{random});
    FindBin::again() if defined &FindBin::again;
    if (defined &CGI::initialize_globals) {
        CGI::initialize_globals();
        CGI->_setup_symbols($s->{cgi_symbols}->@*) if $s->{cgi_symbols}->@*;
        no warnings 'once';
        ($CGI::POST_MAX, $CGI::DISABLE_UPLOADS) = $s->{cgi_settings}->@*;
    }
    # a CGI::Fast loop runs once per request, as under CGI
    if (defined &CGI::Fast::new) {
        require Kamado::CGI::FCGIRequest;
        no warnings 'once';
        $CGI::Fast::Ext_Request = Kamado::CGI::FCGIRequest->new;
    }
    if (defined &CGI::Carp::die) {
        no strict 'refs';
        my $carp = $s->{carp} // \%Kamado::CGI::InProcess::Compile::CARP;
        ${"CGI::Carp::$_"} = $carp->{$_} for keys $carp->%*;
    }
    Kamado::CGI::InProcess::Require::share_lexicals($s->{code}, $s->{subs}->@*);
    # a new page, with the script's formats (perl keeps STDOUT's state)
    Kamado::CGI::InProcess::World::new_page($s->{page}->@*);
    $SIG{$_} = $s->{sig}{$_} for keys $s->{sig}->%*;
    no strict 'refs';
    open *{ ($s->{source}{data_package} // $s->{package}) . '::DATA' }, '<', \$s->{source}{data}
        if defined $s->{source}{data};
    local %Kamado::CGI::InProcess::Require::REQUIRED = $s->{required}->%*;
    undef $Kamado::CGI::InProcess::Overrides::EXIT_CODE;
    # --cgi-timeout, for the whole run (no output can be watched from
    # inside): a die at the limit (USR2, see _on_usr2), and 2 s later the
    # kernel ends the worker, for a script that caught the die or is stuck
    # in C. The server's --request-timeout timers are borrowed and put back.
    local $timing = $timeout && Kamado::borrow_request_timer($timeout, 2) ? $timeout : 0;
    # main:: is the script's own package while it runs (doc/CGI-HAZARDS.md B3):
    # what it spells main::x at compile time is its x, and a call of a
    # main:: sub by name at run time finds its sub
    my %main;
    if ($s->{main_names}->@*) {
        %main = map { $_ => *{"main::$_"} } $s->{main_names}->@*;
        *{"main::$_"} = *{"$s->{package}::$_"} for keys %main;
    }
    no warnings 'once';
    local *main::AUTOLOAD = $s->{autoload};
    # $^S is true in the worker (the server calls the app inside an eval),
    # so CGI::Carp would think every die caught and never show its page
    # (fatalsToBrowser): it asks whether the script itself is in an eval
    no warnings 'redefine';
    local *CGI::Carp::ineval = \&_script_in_eval if defined &CGI::Carp::ineval;
    # another package's variables it names: put back after the run (B13;
    # 0 when it names none: a library it runs may still, save_more)
    my $names = $s->{source}{foreign} //= Kamado::CGI::Source::qualified_names($s->{source}{code});
    my $own = @$names ? { map { $_ => 1 } Kamado::CGI::InProcess::Compile::own_packages($s) } : undef;
    local $Kamado::CGI::InProcess::Snapshot::FOREIGN = $own ? Kamado::CGI::InProcess::Snapshot::save($names, $own) : 0;
    my $ok;
    KAMADO_CGI_SCRIPT: {
        $ok = eval { $s->{code}->(); 1 };
    }
    my $exited =
        defined $Kamado::CGI::InProcess::Overrides::EXIT_CODE || ref $@ eq ref $Kamado::CGI::InProcess::Overrides::EXIT;
    # (a die, as perl reports one: on STDERR, so in the log; the
    # server's own stop is the server's to log)
    print STDERR $@ if !$ok && !$exited && !$timed_out;
    # the END blocks, then PersistentPerl's register_cleanup and perlrun's
    # shutdown handlers, see the exit status in $? (localizing $?, magic,
    # is not free: only when there are some)
    if ($s->{end}->@* || $Kamado::CGI::InProcess::Persistent::PENDING) {
        local $? = $Kamado::CGI::InProcess::Overrides::EXIT_CODE // ($ok || $exited ? 0 : 255);
        for my $end ($s->{end}->@*) {
        KAMADO_CGI_SCRIPT: {
                eval { $end->(); 1 } or ref $@ or print STDERR $@;
            }
        }
        Kamado::CGI::InProcess::Persistent::end_run() if $Kamado::CGI::InProcess::Persistent::PENDING;
    }
    # the package variables as the script compiled them: what the run
    # left in them (objects, locks, open files) goes now, as at the end
    # of a CGI process, and the next run starts from where CGI starts
    # (a library the run required declared a package: Require adds it)
    if (keys $s->{packages}->%* != $s->{known_packages}) {
        $s->{snapshot}->add_package($_) for Kamado::CGI::InProcess::Compile::own_packages($s);
        $s->{known_packages} = keys $s->{packages}->%*;
    }
    # (restore's XS, called straight: Kamado::CGI::InProcess::Snapshot)
    close *$_ for Kamado::CGI::InProcess::Snapshot::_restore($s->{snapshot});
    Kamado::CGI::InProcess::Snapshot::put_back($Kamado::CGI::InProcess::Snapshot::FOREIGN)
        if $Kamado::CGI::InProcess::Snapshot::FOREIGN;
    File::Temp::cleanup() if defined &File::Temp::cleanup && Kamado::CGI::InProcess::World::temp_files();
    if (%main) {
        *{"main::$_"} = $main{$_} for keys %main;
    }
}

# USR2, the soft deadline: the script's run is stopped with a die when
# it was --cgi-timeout's; else it is the server's --request-timeout (or
# a signal from outside), for the handler the worker had. Installed once
# per worker, not for each run (a sigaction and two sigprocmasks each way).
sub _on_usr2 {
    if ($timing) {
        $timed_out = 1;
        die "ran for more than $timing s (--cgi-timeout): stopped\n";
    }
    return $worker_usr2->(@_) if ref $worker_usr2 eq 'CODE';
    return if ($worker_usr2 // '') eq 'IGNORE';
    # (the default action: the end of the process)
    local $SIG{USR2} = 'DEFAULT';
    kill USR2 => $$;
}


sub _response {
    my ($out, $args, $env) = @_;
    my $bytes = Kamado::CGI::InProcess::World::read_output(fileno $out);
    # (the whole output is here: parsed at once, a parser kept only for
    # an nph- script's status line or a head that did not end; a head
    # that parsed is the PSGI response, made in XS)
    my $head = $args->{script}{nph} ? undef : Kamado::CGI::Output::_parse($bytes, 1);
    return $head if ref $head eq 'ARRAY';
    if (!$head) {
        my $parser = Kamado::CGI::Output->new(nph => $args->{script}{nph});
        $head = $parser->feed($bytes);
        # stopped before its head was complete: Apache's answer to a timeout
        return error_response(504) if !$head && $timed_out;
        $head //= $parser->finish;
    }
    if ($head->{error}) {
        Kamado::Log->error("$args->{script}{filename}: $head->{error}");
        return error_response(500);
    }
    return $args->{redirect}->($env, $head->{redirect}) if defined $head->{redirect};
    return [$head->{status}, $head->{headers}, [$head->{rest}]];
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Run - CGI scripts compiled into the worker (modes registry and perlrun)

=cut
