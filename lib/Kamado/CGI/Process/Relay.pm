package Kamado::CGI::Process::Relay;
use 5.024;
use strict;
use warnings;

use File::Temp ();
use IO::Select;
use POSIX ();
use Time::HiRes ();
use Kamado ();
use Kamado::CGI::Output;
use Kamado::CGI::Process::Reaper;
use Kamado::ErrorResponse qw(error_response);
use Kamado::Log;

# What the modes that run a script in a process of its own (exec, fork)
# share: the request body as the script's STDIN (a real descriptor),
# STDOUT a pipe whose head is parsed (Kamado::CGI::Output) and whose body
# is streamed to the client as the script prints it, STDERR a pipe whose
# whole lines go to the server's STDERR as they come, each prefixed with
# the script's path and the request id (Kamado::Log::script_stderr; the
# lines of scripts running at once do not mix); the script stopped at
# --cgi-timeout or when the client is gone.

use constant READ_SIZE => 65536;
# how long and how much of a response is held to send it whole (see _relay)
use constant HOLD => 0.05;
use constant MAX_HOLD => 256 * 1024;
# how long a script stopped by --request-timeout may take to go before it
# is killed (within the server's own grace, after which it kills the worker)
use constant STOP_GRACE => 1;

# response(launch => sub, env => psgi env, script => {filename, dir,
# nph}, timeout => --cgi-timeout, redirect => sub (env, path)
# -> PSGI response) -> a PSGI streaming response: the body as STDIN, pipes
# for STDOUT and STDERR, launch->(stdin, stdout, stderr) starting the process that runs
# the script (its pid, or undef when it could not; stdin is undef when
# the request has no body: the process reads /dev/null), and the relay of
# its output to the client.
sub response {
    my ($class, %a) = @_;
    return sub {
        my ($respond) = @_;
        # (what earlier scripts left, once exited: reaped)
        Kamado::CGI::Process::Reaper->sweep;
        my $stdin = body_input($a{env});
        pipe(my $out_r, my $out_w) or die "Can't create a pipe: $!\n";
        pipe(my $err_r, my $err_w) or die "Can't create a pipe: $!\n";
        my $pid = $a{launch}->($stdin, $out_w, $err_w);
        close $_ for grep { defined } $out_w, $err_w, $stdin;
        if (!$pid) {
            $respond->(error_response(500));
            return;
        }
        Kamado::CGI::Process::Reaper->started($pid);
        # a die in the relay (--request-timeout's, a client gone) stops
        # the script and what it started, then goes on
        eval { _relay($pid, $out_r, $err_r, $respond, %a); 1 } or do {
            my $error = $@;
            Kamado::CGI::Process::Reaper->stop($pid, STOP_GRACE);
            die $error;
        };
        # answered: a script still running (its output closed) is not
        # waited for, but stopped if it outlives --cgi-timeout
        Kamado::CGI::Process::Reaper->finished($pid, $a{timeout});
    };
}

# In a child about to exec a script's perl: the worker's signal handlers
# and blocked signals are not the script's.
sub default_signals {
    $SIG{$_} = 'DEFAULT' for grep { $_ ne '__DIE__' && $_ ne '__WARN__' } keys %SIG;
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new);
}

# The request body as the script's STDIN: the file the server spooled it
# to, opened again read-only from its start (no second copy of a large
# body); a body held in memory, in a file of its own, unlinked at once
# so that a worker that dies leaves nothing behind. undef without a body.
sub body_input {
    my ($env) = @_;
    my $length = $env->{CONTENT_LENGTH} // 0;
    return undef unless $length > 0 || defined $env->{HTTP_TRANSFER_ENCODING};
    my $input = $env->{'psgi.input'};
    # (a body behind "Expect: 100-continue" is read when first asked for,
    # and psgi.input is then the server's own handle)
    if (tied *$input) {
        my $empty = eof $input;
        $input = $env->{'psgi.input'};
    }
    my $fd = fileno $input;
    if (defined $fd && $fd >= 0 && -f $input) {
        my $spooled;
        open($spooled, '<:raw', "/proc/self/fd/$fd") and return $spooled;
        open($spooled, '<&', $input) or die "Can't dup the body file: $!\n";
        sysseek $spooled, 0, 0;
        return $spooled;
    }
    my ($tmp, $name) = File::Temp::tempfile('kamado-body-XXXXXX', TMPDIR => 1);
    unlink $name;
    binmode $tmp;
    while (my $n = $input->read(my $buf, READ_SIZE)) {
        print $tmp $buf;
    }
    $tmp->flush;
    sysseek $tmp, 0, 0;
    return $tmp;
}

# Reads the script's output and errors until both close; answers the
# client from the output.
sub _relay {
    my ($pid, $out, $err, $respond, %a) = @_;
    my $parser = Kamado::CGI::Output->new(nph => $a{script}{nph});
    my ($writer, $done, $err_buf, $held, $select) = (undef, 0, '');
    my $stopped;    # by --cgi-timeout, or a client gone: the rest is not read
    my @open = ($out, $err);
    my $log = sub { Kamado::Log->error("$a{script}{filename}: $_[0]") };
    my $start = sub {
        my ($head) = @_;
        if ($head->{error}) {
            $log->($head->{error});
            $respond->(error_response(500));
        } elsif (defined $head->{redirect}) {
            my $res = $a{redirect}->($a{env}, $head->{redirect});
            ref $res eq 'CODE' ? $res->($respond) : $respond->($res);
        } else {
            # held a moment: most scripts are done by then, and a whole
            # response goes out in one write with its length; one that is
            # not is streamed from then on
            $held = { %$head, until => Time::HiRes::time() + HOLD };
            return;
        }
        $done = 1;    # answered: the rest of the output is dropped
    };
    my $stream = sub {
        $writer = $respond->([$held->{status}, $held->{headers}]);
        $writer->write($held->{rest}) if length $held->{rest};
        undef $held;
    };
    # what a pipe gave: bytes, or '' at its end
    my $take = sub {
        my ($fh, $buf) = @_;
        if (!length $buf) {
            @open = grep { $_ != $fh } @open;
            $select->remove($fh) if $select;
            close $fh;
            if ($held && $fh == $out) {
                # the whole output, held: one response, with its length
                $respond->([$held->{status}, $held->{headers}, [$held->{rest}]]);
                undef $held;
                $done = 1;
            }
            return;
        }
        if ($fh == $err) {
            $err_buf .= $buf;
            Kamado::Log->script_stderr($a{script}{filename}, $a{env}{'kamado.request_id'}, $1)
                if $err_buf =~ s/\A(.*\n)//s;
            return;
        }
        return if $done;
        if ($held) {
            $held->{rest} .= $buf;
            $stream->() if length $held->{rest} > MAX_HOLD;
            return;
        }
        if ($writer) {
            # a client that went away: stop the script, as Apache does
            # (Kamado's writer says so; another server's may die)
            my $ok = eval { $writer->write($buf); 1 };
            $done = $stopped = 1 if !$ok || $writer->can('alive') && !$writer->alive;
            return;
        }
        my $head = $parser->feed($buf);
        $start->($head) if $head;
    };
    # Most scripts are done within HOLD: what they wrote and the end of
    # their output come in one call (collect, XS: poll and read), and the
    # loop below, for the others, does not start.
    my $began = Time::HiRes::time();
    my ($bytes, $errors, $out_open, $err_open) = collect(fileno $out, fileno $err, HOLD, MAX_HOLD);
    $take->($err, $errors) if length $errors;
    $take->($out, $bytes) if length $bytes;
    # (the hold counts from the start: collect has waited already)
    $held->{until} = $began + HOLD if $held;
    $take->($out, '') unless $out_open;
    $take->($err, '') unless $err_open;
    $select = IO::Select->new(@open) if @open;
    my $timeout = $a{timeout} || undef;
    my $last = Time::HiRes::time();
    while (@open && !$stopped) {
        my $left = defined $timeout ? $last + $timeout - Time::HiRes::time() : undef;
        if ($held) {
            my $hold = $held->{until} - Time::HiRes::time();
            $stream->() if $hold <= 0;
            $left = $hold if $held && $hold > 0 && (!defined $left || $hold < $left);
        }
        my @ready = defined $left && $left <= 0 ? () : $select->can_read($left);
        next if !@ready && $held;
        # (an empty answer may also be a signal: only the clock says timeout)
        next if !@ready && (!defined $timeout || Time::HiRes::time() < $last + $timeout);
        $last = Time::HiRes::time();
        if (!@ready) {
            # silent for --cgi-timeout seconds: stopped, as Apache's Timeout
            # does; its children too (it leads their process group). The
            # client is answered first; the rest of its output is dropped.
            $log->("no output for $timeout s (--cgi-timeout): stopping it");
            kill TERM => -$pid, $pid;
            $stream->() if $held;
            if (!$writer && !$done) {
                my $res = error_response(504);
                $start->({ status => $res->[0], headers => $res->[1], rest => $res->[2][0] });
            }
            $stream->() if $held;
            $done = $stopped = 1;
            last;
        }
        for my $fh (@ready) {
            my $n = sysread $fh, my $buf, READ_SIZE;
            $take->($fh, $n ? $buf : '');
        }
    }
    Kamado::Log->script_stderr($a{script}{filename}, $a{env}{'kamado.request_id'}, $err_buf);
    $stream->() if $held;
    $start->($parser->finish) if !$writer && !$done;
    $stream->() if $held;
    $writer->close if $writer;
    # (TERM, then KILL if it is not gone within the grace)
    Kamado::CGI::Process::Reaper->stop($pid) if $stopped;
}

1;
__END__

=head1 NAME

Kamado::CGI::Process::Relay - a script process's STDIO: the body in, its output relayed to the client

=cut
