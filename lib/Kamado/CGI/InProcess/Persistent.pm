package Kamado::CGI::InProcess::Persistent;
use 5.024;
use strict;
use warnings;

use Time::HiRes ();
use Kamado::Hooks;
use Kamado::Log;
use Kamado::CGI::InProcess::Overrides;

# The worker's side of the PersistentPerl API (PersistentPerl.pm sends
# its calls here while a script runs in the worker: Kamado::CGI::InProcess::Run
# puts one of the two runners below in $PersistentPerl::RUNNER for each
# run). When a script's state ends, its shutdown handlers run:
#
# - registry: the script and its kept variables live as long as the
#   worker, so its handlers run when the worker ends, after its last
#   request (Kamado::Hooks' worker_exit): recycling, TERM, the
#   generation a HUP replaces, idle retirement, shutdown_next_time; all
#   of them within --graceful-timeout (a handler still running then is
#   stopped, and the rest are not run: a worker that is being replaced
#   must go, or recycled workers pile up);
# - perlrun: the script is compiled for each request and its package
#   deleted after it, so the state ends with the request: its handlers
#   run at the end of the run, after the cleanups (kept for the worker,
#   they would pile up, one per request, each holding what it closes over).
#
# Cleanups (register_cleanup) run at the end of the run, after the
# script's END blocks, in both.

my $REGISTRY = bless { perlrun => 0 }, __PACKAGE__;
my $PERLRUN = bless { perlrun => 1 }, __PACKAGE__;

my @shutdown;        # the worker's shutdown handlers (registry)
my @run_shutdown;    # this run's (perlrun)
my @cleanup;         # this run's cleanups
our $PENDING = 0;    # a cleanup or a handler waits for the end of the run
our $exit = 0;       # the worker exits after this request (looked at by the runner)

Kamado::Hooks->on(worker_exit => sub { worker_exit(@_) });

# runner(KEPT) -> the runner for a run of a script whose state outlives
# the run (KEPT true: registry) or ends with it (perlrun).
sub runner { $_[1] ? $REGISTRY : $PERLRUN }

sub add_shutdown_handler {
    my ($self, $code) = @_;
    return unless ref $code;
    if ($self->{perlrun}) {
        push @run_shutdown, $code;
        $PENDING = 1;
    } else {
        push @shutdown, $code;
    }
    return;
}

sub set_shutdown_handler {
    my ($self, $code) = @_;
    my $list = $self->{perlrun} ? \@run_shutdown : \@shutdown;
    my $old = $list->[-1];
    @$list = ref $code ? ($code) : ();
    $PENDING = 1 if @run_shutdown;
    return $old;
}

sub register_cleanup {
    my ($self, $code) = @_;
    return unless ref $code;
    push @cleanup, $code;
    $PENDING = 1;
    return;
}

sub shutdown_next_time { $exit = 1 }

# (the script ends as with exit: PersistentPerl's own exit is perl's if
# it was compiled before the in-process overrides)
sub shutdown_now {
    $exit = 1;
    Kamado::CGI::InProcess::Overrides::_exit(0);
}

# At the end of a run, inside the runner's KAMADO_CGI_SCRIPT block (an
# exit in a handler ends that handler): the cleanups, then the run's
# shutdown handlers (perlrun).
sub end_run {
    $PENDING = 0;
    _call('cleanup', splice @cleanup);
    _call('shutdown handler', splice @run_shutdown);
}

# exit_asked() -> whether the run asked the worker to exit (and forgets it).
sub exit_asked {
    my $asked = $exit;
    $exit = 0;
    return $asked;
}

# The worker ends: the shutdown handlers, but for an exit at once (INT),
# within DEADLINE seconds (0: no limit); the time they took when it was
# hit is logged, with how many were not run.
sub worker_exit {
    my ($now, $deadline) = @_;
    my @handlers = splice @shutdown;
    return if $now;
    my $end = $deadline ? Time::HiRes::time() + $deadline : undef;
    my $late = \'late';
    local $SIG{ALRM} = sub { die $late };
    while (my $code = shift @handlers) {
        my $left = $end ? $end - Time::HiRes::time() : 0;
        if ($end && $left <= 0) {
            unshift @handlers, $code;
            last;
        }
        my ($ran, $ok);
        KAMADO_CGI_SCRIPT: {
            $ok = eval {
                Time::HiRes::alarm($left) if $end;
                $code->();
                Time::HiRes::alarm(0);
                1;
            };
            $ran = 1;
        }
        Time::HiRes::alarm(0);
        # (not $ran: the handler called exit, which ends it)
        next if $ok || !$ran;
        if (ref $@ && $@ == $late) {
            Kamado::Log->warn("PersistentPerl shutdown handler still running after $deadline s (--graceful-timeout): "
                . 'stopped' . (@handlers ? ', ' . @handlers . ' more not run' : ''));
            return;
        }
        ref $@ or Kamado::Log->error("PersistentPerl shutdown handler died: $@");
    }
    Kamado::Log->warn("PersistentPerl shutdown handlers: $deadline s (--graceful-timeout) spent, " . @handlers . ' not run')
        if @handlers;
}

sub _call {
    my ($what, @codes) = @_;
    for my $code (@codes) {
        KAMADO_CGI_SCRIPT: {
            eval { $code->(); 1 } or ref $@ or Kamado::Log->error("PersistentPerl $what died: $@");
        }
    }
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Persistent - the worker's side of the PersistentPerl API (modes registry and perlrun)

=head1 SYNOPSIS

    local $PersistentPerl::RUNNER = Kamado::CGI::InProcess::Persistent->runner($s->{kept});
    ... the script runs ...
    Kamado::CGI::InProcess::Persistent::end_run() if $Kamado::CGI::InProcess::Persistent::PENDING;
    $env->{'psgix.harakiri.commit'} = 1 if Kamado::CGI::InProcess::Persistent::exit_asked();

=head1 DESCRIPTION

See L<PersistentPerl> for what scripts see; this module decides when
their handlers run and when the worker exits.

=cut
