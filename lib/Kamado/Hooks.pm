package Kamado::Hooks;
use 5.024;
use strict;
use warnings;

use Carp ();
use File::Spec ();
use Kamado::Log;

# The user's code Kamado runs around the app: --startup FILE, a
# mod_perl-style startup.pl run once in each generation before the app
# loads; --worker-init CODE_OR_MODULE, run in each worker once it is
# forked, before it accepts; and the subs given to on() for a worker's
# events. Errors are one line naming the option.

# The events and what each one's subs are given. A sub registered in the
# supervisor or the generation (-M, --startup, the app as it loads) is
# inherited by every worker forked after; one registered in a worker is
# that worker's.
my %ON = (
    worker_start => [],    # once it has the app, before it accepts
    worker_exit  => [],    # as it exits: (at once, --graceful-timeout)
);

# on(EVENT => CODE): CODE runs at each EVENT from now on; returns CODE
# (for off). Dies, naming the caller's line, for an unknown event.
sub on {
    my ($class, $event, $code) = @_;
    my $subs = _subs($event);
    Carp::croak("Kamado::Hooks->on($event): not a code reference") unless ref $code eq 'CODE';
    push @$subs, $code;
    return $code;
}

# off(EVENT => CODE): CODE no longer runs at EVENT (each time on() gave it).
sub off {
    my ($class, $event, $code) = @_;
    my $subs = _subs($event);
    @$subs = grep { $_ != $code } @$subs;
    return;
}

# emit(EVENT, ARGS): each sub of EVENT, in the order given to on(), with
# ARGS; one that dies is logged, and the others still run.
sub emit {
    my ($class, $event, @args) = @_;
    (my $what = $event) =~ tr/_/ /;
    my @subs = _subs($event)->@*;    # (a copy: a sub may call on or off)
    for my $sub (@subs) {
        eval { $sub->(@args); 1 } or Kamado::Log->error("at $what: " . ($@ =~ s/\s+\z//r));
    }
    return;
}

# has(EVENT): how many subs EVENT has.
sub has { scalar _subs($_[1])->@* }

sub _subs {
    my ($event) = @_;
    return $ON{$event} if defined $event && $ON{$event};
    Carp::croak('Kamado::Hooks: unknown event ' . ($event // 'undef') . ' (' . join(', ', sort keys %ON) . ')');
}

# startup(FILE): runs FILE in this process, in package main, as
# mod_perl's PerlPostConfigRequire does; dies "kamado: --startup FILE:
# ..." when it cannot be read or dies. Its value is not looked at.
sub startup {
    my ($class, $file) = @_;
    # (absolute: `do` looks a relative name up in @INC, not here)
    my $path = File::Spec->rel2abs($file);
    open my $fh, '<', $path or die "kamado: --startup $file: can't read it: $!\n";
    close $fh;
    _do_file($path);
    die "kamado: --startup $file: " . ($@ =~ s/\s+\z//r) . "\n" if $@;
    return 1;
}

# worker_init(SPEC) -> the sub each worker calls. SPEC is a package name
# (words joined by ::, nothing else): the module is loaded here and its
# worker_init method is what each worker calls; anything else is Perl
# code, compiled here (in package main) and run in each worker. Dies with
# one line naming --worker-init when the module cannot be loaded, has no
# worker_init, or the code does not compile.
sub worker_init {
    my ($class, $spec) = @_;
    if ($spec =~ /\A[A-Za-z_]\w*(?:::\w+)*\z/) {
        (my $pm = "$spec.pm") =~ s{::}{/}g;
        eval { require $pm; 1 }
            or die "kamado: --worker-init $spec: can't load $spec: " . ($@ =~ s/\s+\z//r) . "\n";
        $spec->can('worker_init') or die "kamado: --worker-init $spec: $spec has no worker_init method\n";
        return sub { $spec->worker_init };
    }
    my $code = _compile($spec);
    die "kamado: --worker-init: the code does not compile: " . ($@ =~ s/\s+\z//r) . "\n" unless ref $code eq 'CODE';
    return $code;
}

package main;    ## no critic: the user's code is main's, as in a script

# (here, away from any lexical of Kamado::Hooks the code could see)
sub Kamado::Hooks::_do_file { local $!; do $_[0] }

sub Kamado::Hooks::_compile { eval "#line 1 \"--worker-init\"\nsub {\n$_[0]\n}" }

1;
__END__

=head1 NAME

Kamado::Hooks - the user's code run around the app: --startup, --worker-init, a worker's events

=head1 SYNOPSIS

    # in the app, a -M module or a --startup file
    use Kamado::Hooks;
    Kamado::Hooks->on(worker_start => sub { My::DB->connect });
    Kamado::Hooks->on(worker_exit => sub {
        my ($at_once, $grace) = @_;    # 1 on INT; else --graceful-timeout
        My::Queue->flush unless $at_once;
    });

    # what kamado does with them
    Kamado::Hooks->startup('startup.pl');                   # in the generation
    my $init = Kamado::Hooks->worker_init('My::Init');      # in the generation
    Kamado::Hooks->emit('worker_start');                    # in each worker
    $init->();                                              # in each worker
    Kamado::Hooks->emit(worker_exit => 0, 30);              # as a worker exits

=head1 DESCRIPTION

C<startup(FILE)> runs a startup file as mod_perl's C<PerlPostConfigRequire>
does: once, in package C<main>, in the process that then loads the app
and forks the workers (the generation, L<Kamado::Supervisor>), so what it
loads and sets is shared by the workers copy-on-write; each new
generation (HUP) runs it again. A file that cannot be read or dies stops
the generation, with C<kamado: --startup FILE: ...>.

C<worker_init(SPEC)> makes the per-worker hook of C<--worker-init>: for a
package name (C<My::Init>, C<Init>: word characters joined by C<::>,
nothing else) the module is loaded in the generation and
C<< My::Init->worker_init >> is called in each worker; anything else is
Perl code, compiled once in the generation as the body of a sub in
package C<main> (its errors say C<at --worker-init line N>) and called in
each worker. Either is called with no arguments.

=head1 EVENTS

A worker (and the one process of C<--workers 0>) emits two events; code
that must run then registers a sub with C<on>:

=over

=item worker_start

Once the worker has the app, before it accepts its first connection and
before the C<--worker-init> hook: the place to open what must not be
shared between processes (a database connection, a random seed, a
socket). The subs get no arguments. One that dies is logged (C<at worker
start: ...>) and the worker goes on; a worker that must not serve without
it belongs in C<--worker-init>, whose failure stops the worker. While a
worker has C<worker_start> subs, the generation says it serves only once
the first worker has run them.

=item worker_exit

As the worker exits, after its last request (it runs no C<END> blocks: a
worker ends with C<POSIX::_exit>). The subs get two arguments: 1 when the
worker exits at once (INT, mid-request) and 0 after a graceful stop
(recycling, TERM, HUP, idle retirement); and after a graceful stop the
seconds of C<--graceful-timeout> that what they wait for should stay
within (0: no limit; 0 too when it exits at once, when they should not
wait at all). One that dies is logged (C<at worker exit: ...>) and the
others still run. L<Kamado::CGI::InProcess::Persistent> runs the
PersistentPerl shutdown handlers there,
L<Kamado::CGI::Process::Reaper> stops the scripts' processes, and the
worker writes its last access-log lines.

=back

A sub registered in the supervisor or the generation (a C<-M> module, a
C<--startup> file, the app as it loads with the app preloaded) runs in
every worker forked after; one registered in a worker is that worker's
alone: in the app each worker loads (C<--no-preload>), which it loads
before it starts, or in C<--worker-init> or during a request, too late
for the worker's own C<worker_start>. The subs of an event run in the
order they were registered.

=over

=item on(EVENT => CODE)

Registers CODE for EVENT; returns CODE. Dies for an event other than
C<worker_start> and C<worker_exit>, or a CODE that is not a code
reference.

Register once, where the module loads or in C<--worker-init>, not in
the app's request code: each call adds CODE again, and a sub registered
at every request is kept (and run at the worker's exit) once per
request. A request that needs a handler at exit can register it once
and note the request's data where that handler finds it.

=item off(EVENT => CODE)

CODE no longer runs at EVENT.

=item emit(EVENT, ARGS)

Runs EVENT's subs with ARGS, each in an C<eval>, logging one that dies.
Kamado's worker calls it; a test may too.

=item has(EVENT)

How many subs EVENT has.

=back

These replace the arrays C<@Kamado::Prefork::AT_WORKER_START> and
C<@Kamado::Prefork::AT_WORKER_EXIT>, which are gone: a sub pushed there
is not called.

=cut
