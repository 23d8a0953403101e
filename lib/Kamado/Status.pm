package Kamado::Status;
use 5.024;
use strict;
use warnings;

use List::Util qw(max sum0);
use POSIX ();
use Time::HiRes ();
use Kamado;
use Kamado::ErrorResponse qw(error_response);
use Kamado::Scoreboard;
use Kamado::Server;

# The status process: answers --status-listen with its own engine (one
# Kamado::Server, no app worker), from the scoreboards of every live
# generation, which the supervisor hands it as memfds (see
# Kamado::Supervisor::StatusProcess). Word of generations comes on that
# socket and is read when a request comes: nothing waits on it.

my @STATES = qw(starting idle reading app writing draining);
my %BUSY = map { ($_ => 1) } qw(reading app writing);

sub new {
    my ($class, %args) = @_;
    return bless {
        listener   => $args{listener},     # Kamado::Listener
        socket     => $args{socket},       # the supervisor's word and boards
        started    => $args{started} // Time::HiRes::time(),
        supervisor => $args{supervisor} // getppid,
        pools      => ['default', map { $_->{name} } ($args{pools} // [])->@*],
        show_query => $args{show_query},   # --status-query: request lines whole
        gens       => {},                  # pid => {number, board, state, cause}
        retired    => _zero(),             # counters of generations gone
        starts     => {},                  # generation starts by cause
        ends       => {},                  # generation exits by cause
        high       => {},                  # counters' highest values shown
        samples    => [],                  # [time, requests] for the recent rate
    }, $class;
}

sub run {
    my ($self) = @_;
    my $server = Kamado::Server->new(
        listeners     => [$self->{listener}],
        app           => $self->to_app,
        # the supervisor's word is read at each request, and when none
        # comes for a second: a board's descriptor never waits long in
        # the socket
        on_tick       => sub { $self->_intake },
        # a budget of its own: at 256 connections, a new one closes the
        # one that has waited longest for its client, so connections held
        # open without a request (a slow client's, or an attacker's) never
        # keep out a client that sends its request at once
        loop_settings => {keepalive_timeout => 5, header_timeout => 10, read_timeout => 10,
                          write_timeout => 10, max_connections => 256, evict_when_full => 1},
    );
    $SIG{$_} = sub { $server->stop } for qw(TERM QUIT INT);
    $server->run;
    return 0;
}

sub to_app {
    my ($self) = @_;
    return sub {
        my ($env) = @_;
        my $method = $env->{REQUEST_METHOD};
        my $path = $env->{PATH_INFO};
        my $page = {'/' => 'html', '/status.json' => 'json', '/metrics' => 'metrics'}->{$path}
            or return error_response(404);
        if ($method ne 'GET' && $method ne 'HEAD') {
            my $res = error_response(405);
            push $res->[1]->@*, Allow => 'GET, HEAD';
            return $res;
        }
        my $snap = $self->snapshot;
        if ($page eq 'json') {
            require JSON::PP;
            return [200, ['Content-Type' => 'application/json', 'Cache-Control' => 'no-store'],
                [JSON::PP->new->canonical->utf8->encode($snap)]];
        }
        if ($page eq 'metrics') {
            require Kamado::Status::Metrics;
            return [200, ['Content-Type' => 'text/plain; version=0.0.4; charset=utf-8'],
                [Kamado::Status::Metrics->render($snap)]];
        }
        my ($refresh) = ($env->{QUERY_STRING} // '') =~ /(?:^|&)refresh=(\d{1,4})(?:&|$)/;
        require Kamado::Status::HTML;
        return [200, ['Content-Type' => 'text/html; charset=utf-8', 'Cache-Control' => 'no-store'],
            [Kamado::Status::HTML->render($snap, $refresh // 5)]];
    };
}

# Reads the supervisor's word: "board NUMBER PID CAUSE" with the board's
# descriptor, "serving PID", "draining PID", "gone PID HOW".
sub _intake {
    my ($self) = @_;
    my $fd = fileno $self->{socket};
    while (my ($msg, $mem) = Kamado::Scoreboard->recv_fd($fd)) {
        last if $msg eq '' && $mem < 0;    # the supervisor is gone (its TERM follows)
        my ($what, @arg) = split ' ', $msg;
        $what //= '';
        if ($what eq 'board' && $mem >= 0) {
            my $board = Kamado::Scoreboard->attach_fd($mem);
            POSIX::close($mem);
            next unless $board && @arg == 3;
            $self->{starts}{ $arg[2] }++;
            $self->{gens}{ $arg[1] } = {number => $arg[0] + 0, board => $board, state => 'loading'};
            next;
        }
        POSIX::close($mem) if $mem >= 0;
        my $gen = $self->{gens}{ $arg[0] // '' } or next;
        if ($what eq 'serving' || $what eq 'draining') {
            $gen->{state} = $what;
        } elsif ($what eq 'gone') {
            # what it counted stays counted
            my $info = $gen->{board}->info;
            _add($self->{retired}, $info->{totals});
            $self->{retired}{exits}[$_] += $info->{exits}[$_] for 0 .. $#{ $info->{exits} };
            $self->{ends}{ $arg[1] // 'exited' }++;
            delete $self->{gens}{ $arg[0] };
        }
    }
}

sub _zero {
    return {status => [(0) x 5], buckets => [(0) x 15], seconds => 0, bytes_in => 0, bytes_out => 0, blocked => 0,
        exits => [(0) x 16]};
}

sub _add {
    my ($to, $c) = @_;
    $to->{status}[$_] += $c->{status}[$_] for 0 .. 4;
    $to->{buckets}[$_] += $c->{buckets}[$_] for 0 .. $#{ $c->{buckets} };
    $to->{$_} += $c->{$_} // 0 for qw(seconds bytes_in bytes_out blocked);
}

# A counter never shown lower than before (a slot being cleared can be
# missed for an instant: see kd_sb_totals).
sub _rising {
    my ($self, $key, $value) = @_;
    my $high = $self->{high};
    return $high->{$key} = max($value, $high->{$key} // 0);
}

# Everything the pages show, as one structure (it is /status.json).
sub snapshot {
    my ($self) = @_;
    $self->_intake;
    my $now = Time::HiRes::time();
    my $t = _zero();
    _add($t, $self->{retired});
    my @exits = $self->{retired}{exits}->@*;
    my (@workers, @generations, @queued);
    my %by_state = map { ($_ => 0) } @STATES;
    for my $pid (sort { $self->{gens}{$a}{number} <=> $self->{gens}{$b}{number} } keys $self->{gens}->%*) {
        my $gen = $self->{gens}{$pid};
        my $info = $gen->{board}->info;
        _add($t, $info->{totals});
        $exits[$_] += $info->{exits}[$_] for 0 .. $#exits;
        $queued[$_] += $info->{totals}{queued}[$_] for 0 .. $#{ $info->{totals}{queued} };
        my @slots = grep { $_->{state} ne 'free' } $gen->{board}->slots;
        for my $s (@slots) {
            $by_state{ $s->{state} }++;
            push @workers, {
                pid => $s->{pid}, generation => $gen->{number}, slot => $s->{slot},
                pool => $self->{pools}[ $s->{pool} ] // $s->{pool}, state => $s->{state},
                request => $self->{show_query} ? $s->{request} : _without_query($s->{request}),
                requests => $s->{requests}, connections => $s->{connections},
                # requests being served: up to --streams in an async worker
                streams => $s->{streams},
                # the current request's age; the state's, when there is none
                age => $BUSY{ $s->{state} } ? _round($s->{request_seconds}) : undef,
                state_seconds => _round($s->{seconds}),
                memory => {private => $s->{private}, shared => $s->{shared}, pss => $s->{pss}},
            };
        }
        push @generations, {number => $gen->{number}, pid => $pid + 0, state => $gen->{state},
            started => _round($info->{started}), workers => scalar @slots};
    }
    my %status = map { (($_ + 1) . 'xx' => $self->_rising("status$_", $t->{status}[$_])) } 0 .. 4;
    my @bounds = Kamado::Scoreboard->bounds;
    my ($count, @buckets) = (0);
    for my $i (0 .. $#{ $t->{buckets} }) {
        $count = $self->_rising("bucket$i", $count + $t->{buckets}[$i]);
        push @buckets, {le => $i <= $#bounds ? $bounds[$i] : '+Inf', count => $count};
    }
    my $requests = sum0 values %status;
    my $uptime = $now - $self->{started};
    return {
        server => {
            version => $Kamado::VERSION, pid => $self->{supervisor}, started => _round($self->{started}),
            uptime => _round($uptime),
        },
        requests => {
            total => $requests, by_class => \%status,
            per_second => _round($uptime > 0 ? $requests / $uptime : 0),
            per_second_recent => _round($self->_recent($now, $requests)),
        },
        durations => {buckets => \@buckets, count => $count, sum => _round($self->_rising('seconds', $t->{seconds}))},
        bytes => {in => $self->_rising('in', $t->{bytes_in}), out => $self->_rising('out', $t->{bytes_out})},
        loop_blocked => $self->_rising('blocked', $t->{blocked}),
        workers => \@workers,
        workers_by_state => \%by_state,
        generations => \@generations,
        pools => [map { {name => $self->{pools}[$_], queued => $queued[$_] // 0} } 0 .. $#{ $self->{pools} }],
        worker_exits => {map { ($Kamado::Scoreboard::EXITS[$_] => $self->_rising("exit$_", $exits[$_])) }
            0 .. $#Kamado::Scoreboard::EXITS},
        generation_starts => {map { ($_ => $self->{starts}{$_} // 0) } qw(start hup reload replace)},
        generation_exits => {map { ($_ => $self->{ends}{$_} // 0) } qw(exited crashed killed)},
        cgi_scripts => _cgi_scripts(),
    };
}

# The CGI scripts' modes, as the workers chose them (--cgi-mode auto:
# Kamado::CGI::Auto), one entry per script: its mode (the slowest any
# live worker gave it: a demotion is one worker's), why, and since when.
sub _cgi_scripts {
    return [] unless $INC{'Kamado/CGI/Auto.pm'};
    my %rank = (registry => 0, perlrun => 1, fork => 2, exec => 3);
    my %by;
    for my $w (Kamado::CGI::Auto->shared->@*) {
        my $had = $by{ $w->{script} };
        $by{ $w->{script} } = $w if !$had || $w->{time} > $had->{time} && $rank{ $w->{mode} } >= $rank{ $had->{mode} }
            || $rank{ $w->{mode} } > $rank{ $had->{mode} };
    }
    return [map { { script => $_->{script}, mode => $_->{mode}, reason => $_->{reason},
        demoted => $_->{demoted} ? JSON::PP::true() : JSON::PP::false(), since => $_->{time} + 0 } } @by{ sort keys %by }];
}

# Requests a second over the last minute (or since the first look).
sub _recent {
    my ($self, $now, $requests) = @_;
    my $samples = $self->{samples};
    # one sample a second at most, the last minute's
    push @$samples, [$now, $requests] if !@$samples || $now - $samples->[-1][0] >= 1;
    shift @$samples while @$samples > 2 && $samples->[1][0] < $now - 60;
    my ($t0, $r0) = $samples->[0]->@*;
    return $now - $t0 >= 1 ? ($requests - $r0) / ($now - $t0) : 0;
}

# A request line without its query string (tokens, addresses, searches:
# not every reader of the status page may see them), the ? kept.
sub _without_query {
    my ($line) = @_;
    $line =~ s/\?[^ ]*/?/ if defined $line;
    return $line;
}

sub _round { defined $_[0] ? 0 + sprintf '%.3f', $_[0] : undef }

1;
__END__

=head1 NAME

Kamado::Status - the status process: an HTML page, JSON and Prometheus
metrics on B<--status-listen>

=head1 DESCRIPTION

    kamado supervisor app.psgi
     \_ kamado status app.psgi          (this module, on --status-listen)
     \_ kamado generation 1 app.psgi
         \_ kamado worker app.psgi

=head2 Who answers, and why

A process of its own, forked by the supervisor, answers with its own
event loop (a L<Kamado::Server> serving the app of this module), never an
app worker: a status page is wanted most when every worker is busy or
stuck, and the app cannot block a process it does not run in. It is not
the supervisor itself either: the process that keeps the server up never
parses HTTP from the network. It is not one per generation: during a HUP
an old generation drains next to the new one, and one listener shows
both.

It sees every live generation's workers because the supervisor makes
each generation's L<Kamado::Scoreboard> (in a memfd) before forking the
generation, and hands the status process the board's descriptor over a
socket pair only the two of them hold, with word of each generation's
state (loading, serving, draining, gone). So nothing it reads is a file or
a socket another user can create or write: no path is opened but
C</proc/PID/smaps_rollup> of the generation's own children, read by the
generation. When a generation is gone, what it counted is added to the
totals, so counters never go down.

=head2 Pages

=over

=item C</>

An HTML page like Apache's server-status: server, generations, pools and
their queues, and a table of workers (pid, generation, pool, state,
request line, the request's age, requests served, connections, streams
(requests being served), private, shared and proportional memory). It
refreshes itself every 5 seconds;
C<?refresh=N> sets N, 0 none. Every value is escaped.

=item C</status.json>

The same as JSON: C<server>, C<requests> (total, C<by_class>,
C<per_second> since start, C<per_second_recent> over the last minute),
C<durations> (cumulative buckets), C<bytes>, C<loop_blocked> (times an
async worker's loop was held half a second), C<workers> (an array),
C<workers_by_state>, C<generations>, C<pools> (C<queued>: connections
handed to the pool's queue and not yet taken), C<worker_exits>,
C<generation_starts>, C<generation_exits>.

=item C</metrics>

Prometheus text exposition (L<Kamado::Status::Metrics>).

=back

Other paths are 404; methods other than GET and HEAD, 405.

=head2 What it shows, and to whom

Request lines are shown without their query strings (C<GET /reset?>): a
query often carries what only its sender may see (a
password-reset token, an API key, an address searched for), and the
status page answers whoever can connect to B<--status-listen>, every
local user by default. B<--status-query> shows them whole, for a
listener only trusted people reach.

=head2 How many it answers

It holds at most 256 connections. When they are all open, a new one
closes the connection that has waited longest for its client (a head
not complete, an idle keep-alive): slow clients, or a local user holding
connections open, cannot keep out a client that sends its request at
once.

=cut
