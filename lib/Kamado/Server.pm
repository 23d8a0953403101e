package Kamado::Server;
use 5.024;
use strict;
use warnings;

use Kamado;
use Kamado::DeferredInput;
use Kamado::Log;
use Kamado::Loop ();
use Kamado::Options ();
use Kamado::Server::Errors;
use Kamado::Server::Input;
use Kamado::Server::Limits;
use Kamado::Server::Response;
use POSIX ();
use Time::HiRes ();

# One worker's request loop: the C engine hands over complete request
# heads; this module owns the PSGI semantics (body buffering, calling the
# app, streaming, cleanup handlers, harakiri) and the worker's lifetime.
# The parts of a request other than calling the app are in role modules,
# as plain functions over this object (no method lookup on the request
# path): Kamado::Server::Input (psgi.input), ::Response (what is not sent
# in one call), ::Errors (failed apps), ::Limits (--request-timeout,
# --max-rss).

# What $SIG{CHLD} is while a worker waits for a request, and only then
# (during one, a handler would take the exit status the app's own
# waitpid or system() waits for); undef: it is left as it is.
# Kamado::CGI::Process::Reaper sets it while children an in-process CGI script
# forked are left, to reap them as they exit.
our $IDLE_CHLD;

# The keys of the worker's hash this module owns (the role modules own
# the others, each its FIELDS; t/fields.t checks that each writes only its
# own): its settings, and the loop it runs.
use constant FIELDS => qw(app listeners max_requests max_age max_rss request_timeout spool_threshold loop_settings
    expect_to_app write_buffer on_drain on_tick scoreboard slot pools access_log stopping loop pid why);

# What a worker's loop is made from, by server class: new's settings
# with the option table's defaults, each listener's env template, and
# what they were made from. prepare() makes them in the generation before
# it forks: a worker that makes them itself writes to many pages it
# shares with the generation (each reference taken to a value made
# before the fork is a reference count written).
my %PREPARED;

sub new {
    my ($class, %args) = @_;
    my $self = bless {
        app               => $args{app},
        listeners         => $args{listeners},          # [Kamado::Listener]
        max_requests      => $args{max_requests} // Kamado::Options::default('max_reqs_per_child'),  # 0: unlimited
        max_age           => $args{max_age} // Kamado::Options::default('max_worker_age'),  # seconds; 0: unlimited
        max_rss           => $args{max_rss} // Kamado::Options::default('max_rss'),  # MB; 0: unlimited
        request_timeout   => $args{request_timeout} // Kamado::Options::default('request_timeout'),  # seconds; 0: none
        spool_threshold   => $args{spool_threshold} // Kamado::Options::default('spool_threshold'),
        loop_settings     => $args{loop_settings} || {},
        # --expect-to-app: the app reads psgi.input to accept an Expect upload
        expect_to_app     => ($args{loop_settings} || {})->{expect_to_app},
        write_buffer      => ($args{loop_settings} || {})->{write_buffer} // Kamado::Options::default('write_buffer'),
        on_drain          => $args{on_drain},           # called when accepting stops, with why
        on_tick           => $args{on_tick},            # called when a second passes without a request
        scoreboard        => $args{scoreboard},         # Kamado::Scoreboard, or undef
        slot              => $args{slot},               # this worker's slot in it
        pools             => $args{pools},  # {routes => [[prefix, send fd]], mine, recv_fd, listen}
        access_log        => $args{access_log},  # Kamado::AccessLog, or undef
        stopping          => 0,
    }, $class;
    return $self;
}

# The class of a worker given these arguments: Kamado::Server::Async for
# an async one (--async, or a pool's async), loaded only then.
sub class_for {
    my ($class, $args) = @_;
    return $class unless $args->{async};
    require Kamado::Server::Async;
    return 'Kamado::Server::Async';
}

# Asks the loop to stop after the request in progress. Called from signal
# handlers (Perl's deferred signals make that safe): the engine stops
# accepting at once, so a response being prepared already says
# Connection: close.
sub stop {
    my ($self) = @_;
    $self->{stopping} = 1;
    # (1: what waits in this worker's pool queue is served too)
    $self->{loop}->stop_accepting(1) if $self->{loop};
}

# In the generation before it forks: the server of a worker given these
# arguments (class_for says its class), and the parts of its loop, made
# here once. Returns the server.
sub prepare {
    my ($class, %args) = @_;
    my $self = $class->class_for(\%args)->new(%args);
    my $made = $PREPARED{ ref $self } = _loop_parts($self);
    Kamado::Loop->presize_templates($made->{templates});
    Kamado::Server::Input::prepare_empty();
    return $self;
}

# In a worker just forked, on the server prepare() made: what is this
# worker's own (max_requests, max_age, slot; app when the worker loaded
# it). Returns the server.
sub for_worker {
    my ($self, %args) = @_;
    @$self{qw(max_requests max_age slot)} = @args{qw(max_requests max_age slot)};
    $self->{app} = $args{app} if $args{app};
    return $self;
}

# The worker's event loop over its listeners, with its settings, pools,
# request ids and scoreboard slot; returns it, and whether the access log
# is written by the loop itself (native).
sub open_loop {
    my ($self) = @_;
    my $made = $PREPARED{ ref $self };
    $made = _loop_parts($self)
        unless $made && $made->{from}[0] == $self->{loop_settings} && $made->{from}[1] == $self->{listeners};
    my $loop = Kamado::Loop->new([map { $_->fd } $self->{listeners}->@*], @$made{qw(templates settings)});
    $loop->set_pools(@{ $self->{pools} }{qw(routes mine recv_fd listen)}) if $self->{pools};
    # a request that ends the worker (the --request-timeout kill, a crash
    # in C, an exit) does not take the other connections with it
    $loop->last_words or Kamado::Log->warn("Can't set the worker's last words: $!");
    $self->{loop} = $loop;
    $self->{pid} = Kamado::current_pid();    # the worker (see _forked)
    $loop->empty_input(Kamado::Server::Input::empty($self));
    # each request's id: in its env, and in $Kamado::Log::REQUEST_ID while
    # it is served (until the next next_request)
    $loop->request_ids(Kamado::Log::request_id_prefix(), \*Kamado::Log::REQUEST_ID);
    # the engine reports its state there itself: no Perl call per request
    $loop->scoreboard($self->{scoreboard}, $self->{slot}) if $self->{scoreboard} && defined $self->{slot};
    # (native: the loop makes the lines itself)
    my $native = $self->{access_log} && $self->{access_log}->attach($loop);
    return ($loop, $native);
}

# What this kind of worker adds to each request's env, and to its loop's
# settings.
sub env_extra  { () }
sub loop_extra { () }

# What the loop of this server is made from: its settings, with the option
# table's defaults, and each listener's env template.
sub _loop_parts {
    my ($self) = @_;
    my @listeners = $self->{listeners}->@*;
    my $settings = Kamado::Loop->settings($self->{loop_settings}->%*, $self->loop_extra);
    $settings->{proxy_protocol} = [map { $_->proxy_protocol ? 1 : 0 } @listeners]
        if grep { $_->proxy_protocol } @listeners;
    return {
        from      => [$self->{loop_settings}, $self->{listeners}],
        settings  => $settings,
        templates => [map { $_->env_template($self->env_extra) } @listeners],
    };
}

# Serves requests until stop() is called or the request budget is spent.
sub run {
    my ($self) = @_;
    my ($loop, $native) = $self->open_loop;
    my $log = $self->{access_log};
    local $SIG{PIPE} = 'IGNORE';
    # the soft stop of --request-timeout: a die in whatever Perl code runs
    local $SIG{USR2} = Kamado::Server::Limits::soft_stop($self) if $self->{request_timeout};
    my $budget = $self->{max_requests};
    my $retire_at = $self->{max_age} && Time::HiRes::time() + $self->{max_age};
    my $max_kb = $self->{max_rss} * 1024;
    my $timeout = $self->{request_timeout};
    # the app, wrapped to start the clock and answer 504 (see Kamado::Server::Limits)
    local $self->{app} = Kamado::Server::Limits::timed_app($self, $self->{app}) if $timeout;
    my $limited = $budget || $max_kb || $retire_at || $timeout;
    my $served = 0;
    # without --max-rss or --request-timeout (checked after each request)
    # or an access log made in Perl, the loop serves the plain requests
    # itself, calling the app from C and counting them against the budget
    # and the age, and gives this loop the others where it stops (while
    # children are reaped, it only takes the next request, as next_request)
    my $in_c = !$max_kb && !$timeout && (!$log || $native);
    my @serve = (
        $loop, 1000, $self->{app}, \$self->{stopping}, \*IDLE_CHLD, $self->{pid}, $native,
        \$served, $budget || 0, $retire_at || 0
    );
    my ($why, $chld);
    while (!$self->{stopping}) {
        # (SIGCHLD caught while it waits, when children are to be reaped)
        ($chld, $SIG{CHLD}) = ($SIG{CHLD} // 'DEFAULT', $IDLE_CHLD) if $IDLE_CHLD && !defined $chld;
        # (here and in handle_request, the loop's subs and this class's
        # are called as functions: a method lookup per call is a cost every
        # request pays, and neither class is subclassed for them)
        my ($fd, $env, $body, $answers, @answer) =
            $in_c ? Kamado::Loop::serve(@serve, !defined $chld) : Kamado::Loop::next_request($loop, 1000);
        if (!$env) {
            # (serve: requests served, then a flag set, the budget spent or
            # the age reached)
            last if defined $fd && $fd < -1 && ($why = $fd == -2 ? 'max_requests' : 'max_age');
            next if defined $fd;
            ($SIG{CHLD}, $chld) = ($chld, undef) if defined $chld && !$IDLE_CHLD;
            $self->{on_tick}->() if $self->{on_tick};
            $log->idle($self->{listeners}) if $log;
            Kamado::Server::Errors::log_faults($self);
            last if $retire_at && Time::HiRes::time() >= ($why = 'max_age', $retire_at)[1];
            next;
        }
        ($SIG{CHLD}, $chld) = ($chld, undef) if defined $chld;
        handle_request($self, $fd, $env, $body, @answer);
        if ($log) {
            $native ? $loop->log_request($env) : $log->request($env);
            $log->answers($self->{listeners}) if $answers;
        }
        Kamado::Server::Errors::log_faults($self) if $answers;
        my $retire = $limited && _retire($self, $env, \$served, $budget, $max_kb, $retire_at, $timeout);
        # the env's objects go now, and its hash serves the next request
        undef $env;
        Kamado::Loop::env_done($loop);
        last if $retire and $why = $retire;
    }
    $SIG{CHLD} = $chld if defined $chld;
    # why it stops, for the generation's count of exits (Kamado::Scoreboard)
    stops_for($self, $self->{stopping} ? $self->{why} // 'stop' : $why);
    $self->_drain;
    close_loop($self);
    return $served;
}

# Why the worker stops (harakiri, max_requests, stop...): what it tells
# the generation as it drains.
sub stops_for {
    my ($self, $why) = @_;
    $self->{why} = $why;
}

# The worker's loop is done: its last access-log lines go out.
sub close_loop {
    my ($self) = @_;
    undef $Kamado::Log::REQUEST_ID;
    $self->{access_log}->detach($self->{listeners}) if $self->{access_log};
    undef $self->{loop};
}

# Why the worker stops after the request just served (--max-requests,
# --max-rss, --max-age), or false.
sub _retire {
    my ($self, $env, $served, $budget, $max_kb, $retire_at, $timeout) = @_;
    Kamado::Server::Limits::disarm($self) if $timeout;    # app, response and cleanup done
    return 'max_requests' if $budget && ++$$served >= $budget;
    return 'max_rss' if $max_kb && Kamado::Server::Limits::over_rss($self, $env, $max_kb);
    return 'max_age' if $retire_at && Time::HiRes::time() >= $retire_at;
    return '';
}

# --access-log: the request just served (the loop recorded its
# response), and the requests the loop answered itself meanwhile.
sub _log_request {
    my ($self, $env, $answers) = @_;
    my $log = $self->{access_log};
    $log->{native} ? $self->{loop}->log_request($env) : $log->request($env);
    $log->answers($self->{listeners}) if $answers;
}

# Stops accepting, then serves what was already received: one more request
# on each open connection (answered with Connection: close: closing an
# idle keep-alive connection outright races with a client sending on it),
# and, on a stop, the connections waiting in this worker's pool queue. The
# engine's deadlines bound it: an idle connection gets 1 s, a partial
# request its --header-timeout or --read-timeout; after TERM the
# generation's --graceful-timeout bounds the whole.
sub _drain {
    my ($self) = @_;
    my $loop = $self->{loop};
    $loop->stop_accepting($self->{stopping} ? 1 : 0);
    $self->{on_drain}->($self->{why} // 'stop') if $self->{on_drain};
    my $log = $self->{access_log};
    until ($loop->drained) {
        (my ($fd, $env, $body, $answers) = $loop->next_request(100)) or do {
            $log->idle($self->{listeners}) if $log;
            Kamado::Server::Errors::log_faults($self);
            next;
        };
        $self->handle_request($fd, $env, $body);
        $self->_log_request($env, $answers) if $log;
        Kamado::Server::Errors::log_faults($self) if $answers;
        undef $env;
        $loop->env_done;
    }
}

# Runs the app for one request and sends its response. Given RES and
# CLEANUP, the loop has called the app (Kamado::Loop::serve): RES is its
# response, CLEANUP its cleanup handlers as they were before it ran, and
# SENT, when the loop wrote the response too, what write_response
# returned; the rest is done here.
sub handle_request {
    my ($self, $fd, $env, $body_kind, $res, $cleanup, @sent) = @_;
    my $loop = $self->{loop};
    if (@_ < 6) {
        if ($body_kind) {
            Kamado::Server::Input::start($self);
            if ($self->{expect_to_app} && Kamado::Server::Input::expects_continue($env)) {
                my $request = $loop->serving($fd);
                $env->{'psgi.input'} = Kamado::DeferredInput->handle(
                    sub { Kamado::Server::Input::deferred_body($self, $fd, $env, $body_kind, $request) });
                $env->{'psgix.input.buffered'} = 0;
            } else {
                # the server has answered any Expect itself (the loop holds
                # the body, or the read sends the 100): none left to the app
                delete $env->{HTTP_EXPECT};
                Kamado::Server::Input::read_body($self, $fd, $env, $body_kind) or return;
            }
        } elsif (!$env->{'psgi.input'}) {
            # the loop gives the worker's empty input while it is open
            $loop->empty_input($env->{'psgi.input'} = Kamado::Server::Input::empty($self));
        }
        upgradable($fd, $env) if exists $env->{HTTP_UPGRADE};
        $cleanup = $env->{'psgix.cleanup.handlers'};    # (the loop's, empty)

        $res = eval { $self->{app}->($env) };
    }
    _forked() if Kamado::current_pid() != $self->{pid};
    stops_for($self, 'harakiri'), $self->stop if $env->{'psgix.harakiri.commit'};
    if ($body_kind && $self->{body_failed}) {
        # a deferred body failed: its 408/413/400 is sent, the app's answer is not
    } elsif (ref $res eq 'ARRAY' && @$res == 3 && ref $res->[2] eq 'ARRAY' && ref $res->[1] eq 'ARRAY') {
        # the common case, all in C; false but defined: a refused head
        my $sent = @sent ? $sent[0] : Kamado::Loop::write_response($loop, $fd, @$res);
        # (a 101 is refused there: it is the upgrade's)
        $sent = upgrade($self, $fd, $env, $res) if defined $sent && !$sent && $env->{'psgix.io'} && $res->[0] eq '101';
        Kamado::Server::Errors::framing_error($self, $fd, $env, $sent)
            if defined $sent && (!$sent || $sent == Kamado::Loop::BODY_MISMATCH);
    } elsif (!defined $res) {
        Kamado::Server::Errors::log_error($env, "app died: " . ($@ || 'returned undef'));
        Kamado::Server::Errors::server_error($self, $fd);
    } elsif (ref $res eq 'ARRAY') {
        Kamado::Server::Response::respond($self, $fd, $env, $res);
    } elsif (ref $res eq 'CODE') {
        Kamado::Server::Response::respond_delayed($self, $fd, $env, $res);
    } else {
        Kamado::Server::Errors::log_error($env, "app returned an invalid response: $res");
        Kamado::Server::Errors::server_error($self, $fd);
    }

    if (@$cleanup) {
        for my $handler (@$cleanup) {
            eval { $handler->($env); 1 } or Kamado::Server::Errors::log_error($env, "cleanup handler died: $@");
        }
    }
    # (set by a cleanup handler)
    stops_for($self, 'harakiri'), $self->stop if $env->{'psgix.harakiri.commit'} && !$self->{stopping};
}

# A request that asks to upgrade its connection (WebSocket) gets
# psgix.io, a handle of its own on the socket (a duplicate: the loop's
# descriptor is untouched while the app does not take it).
sub upgradable {
    my ($fd, $env) = @_;
    open my $io, '+<&', $fd or return;
    binmode $io;
    $env->{'psgix.io'} = $io;
}

# A 101 from the app: the head is sent and the connection is the app's,
# through psgix.io; the loop forgets it. Returns as write_response does.
sub upgrade {
    my ($self, $fd, $env, $res) = @_;
    my $up = $self->{loop}->upgrade($fd, $res->[0], $res->[1]);
    # the loop's sockets do not block; a blocking worker's app reads and
    # writes its own the plain way
    $env->{'psgix.io'}->blocking(1) if $up && !$env->{'psgi.nonblocking'};
    return $up;
}

# A process the app forked has returned into the server: the connection
# and the request loop are the worker's, so it ends here, at once, without
# a byte to the client, the worker's cleanup or its END blocks.
sub _forked {
    POSIX::_exit(0);
}

1;
__END__

=head1 NAME

Kamado::Server - one worker's request loop

=head1 SYNOPSIS

    my $server = Kamado::Server->new(app => $app, listeners => \@listeners);
    local $SIG{TERM} = sub { $server->stop };
    $server->run;

=head1 DESCRIPTION

Serves PSGI requests on already-bound listeners until C<stop> is called or
C<max_requests> have been served, then answers the pipelined requests it
already received and closes its connections. The process manager
(L<Kamado::Prefork>) runs one per worker.

A request with an C<Upgrade> header gets C<psgix.io>, a handle on its
socket (a duplicate of the loop's descriptor). A C<101> response, returned
or given to the responder, is sent as the app gave it (its
C<Connection: Upgrade> too) and the connection is the app's from then on:
the loop forgets it, and the handle is made blocking in a blocking worker
(where the app runs the whole exchange, WebSocket say, inside its call);
the writer the responder returns then does nothing. Any other response
leaves the connection to the server, the handle unused.

Without B<--max-rss>, B<--request-timeout> and an access log made in
Perl, the loop serves a plain request (no body, no C<Upgrade>) whose app
answers C<[STATUS, [HEADERS], [BODY]]> with no cleanup handler all in C,
the app called from there (L<Kamado::Loop>'s C<serve>), and counts it
against B<--max-reqs-per-child> and B<--max-worker-age>; any other request is
handed to this module at the point where the loop stopped, and served as
before. An app that looks at its callers (C<caller>, a stack trace) sees
C<Kamado::Server::run> and an eval frame where it saw
C<handle_request>.

An async worker is L<Kamado::Server::Async>, a subclass
(C<< Kamado::Server->class_for(\%args) >> chooses).

C<< Kamado::Server->prepare(%args) >>, called before the workers fork
with the arguments they will be given, makes there their server and what
their loops are made from (the settings with their defaults, the
listeners' env templates, the empty C<psgi.input>), and returns the
server; each worker takes it and sets only what is its own with
C<< $server->for_worker(max_requests => N, max_age => S, slot => I) >>
(and C<app> when it loaded the app itself), so that the workers share
what was made instead of each making, and writing, its own. A server
given other settings or listeners makes its own.

A process the app forks that returns into the server (from the app, or
through the responder of a delayed response) exits there at once with
status 0: it writes nothing to the connection and never serves as a
worker; a streaming writer used in such a process does nothing. A child
that exits by itself is not affected.

=head1 SEE ALSO

The parts of a request, each a set of functions over this object:
L<Kamado::Server::Input> (the request body as psgi.input),
L<Kamado::Server::Response> (responses that are not a plain array,
delayed and streamed ones), L<Kamado::Server::Errors> (answers to a
failed app, and its log lines), L<Kamado::Server::Limits>
(B<--request-timeout>, B<--max-rss>); and L<Kamado::Server::Async> with
L<Kamado::Server::Stream>.

They share this object's hash. Each module declares the keys it owns,
its C<FIELDS> constant, and writes only those: another module's key is
changed through its owner's function (C<stops_for>, C<close_loop> here;
C<Kamado::Server::Input::start>; C<stream_opened> and C<stream_ended> in
Async). F<t/fields.t> checks it: no key claimed twice, none written by a
module that does not own it, none read that nobody owns.

=cut
