package Kamado::Status::Metrics;
use 5.024;
use strict;
use warnings;

# /metrics: a Kamado::Status snapshot in Prometheus' text exposition
# format (version 0.0.4).

sub render {
    my ($class, $s) = @_;
    my @out;
    my $family = sub {
        my ($name, $type, $help, @samples) = @_;
        push @out, "# HELP $name $help", "# TYPE $name $type";
        while (my ($labels, $value) = splice @samples, 0, 2) {
            push @out, $name . _labels($labels) . ' ' . _value($value);
        }
    };
    my $by = sub {
        my ($label, $hash) = @_;
        return map { ({$label => $_}, $hash->{$_}) } sort keys %$hash;
    };
    $family->('kamado_requests_total', 'counter', 'Responses sent, by status class.',
        $by->(class => $s->{requests}{by_class}));
    my $d = $s->{durations};
    push @out, '# HELP kamado_request_duration_seconds Time from a complete request head to the end of its response.',
        '# TYPE kamado_request_duration_seconds histogram',
        (map { 'kamado_request_duration_seconds_bucket' . _labels({le => $_->{le}}) . ' ' . _value($_->{count}) }
            $d->{buckets}->@*),
        'kamado_request_duration_seconds_sum ' . _value($d->{sum}),
        'kamado_request_duration_seconds_count ' . _value($d->{count});
    $family->('kamado_received_bytes_total', 'counter', 'Bytes read from clients.', {}, $s->{bytes}{in});
    $family->('kamado_sent_bytes_total', 'counter', 'Bytes written to clients.', {}, $s->{bytes}{out});
    $family->('kamado_loop_blocked_total', 'counter',
        'Times an async worker\'s loop was held half a second or more by an app (logged with the request).',
        {}, $s->{loop_blocked} // 0);
    $family->('kamado_workers', 'gauge', 'Workers of every live generation, by state.',
        $by->(state => $s->{workers_by_state}));
    my %streams;
    $streams{ $_->{pool} } += $_->{streams} // 0 for $s->{workers}->@*;
    $family->('kamado_open_streams', 'gauge',
        'Requests being served, summed by pool: an async worker serves many at once (open streams), a blocking one one.',
        $by->(pool => \%streams));
    $family->('kamado_queue_depth', 'gauge', 'Connections handed to a pool\'s queue and not yet taken.',
        map { ({pool => $_->{name}}, $_->{queued}) } $s->{pools}->@*);
    $family->('kamado_worker_exits_total', 'counter',
        'Workers that exited (replaced or retired), by cause; the kills among them: request_timeout, graceful_timeout, crash.',
        $by->(cause => $s->{worker_exits}));
    $family->('kamado_generation_starts_total', 'counter', 'Generations started: at start, on HUP, or to replace one that ended.',
        $by->(cause => $s->{generation_starts}));
    $family->('kamado_generation_exits_total', 'counter', 'Generations that ended: exited, crashed, or killed by the supervisor.',
        $by->(cause => $s->{generation_exits}));
    $family->('kamado_generations', 'gauge', 'Live generations.', {}, scalar $s->{generations}->@*);
    # (summed: a label per pid would grow without bound as workers are
    # replaced; /status.json has each worker's)
    my %memory;
    for my $w ($s->{workers}->@*) {
        $memory{$_} += $w->{memory}{$_} // 0 for qw(private shared pss);
    }
    $family->('kamado_worker_memory_bytes', 'gauge',
        'Live workers\' memory (smaps_rollup), summed: private, shared (as each sees it), pss (their real total).',
        map { ({kind => $_}, $memory{$_} // 0) } qw(private shared pss));
    $family->('kamado_uptime_seconds', 'gauge', 'Seconds since the supervisor started.', {}, $s->{server}{uptime});
    return join "\n", @out, '';
}

sub _labels {
    my ($l) = @_;
    return '' unless %$l;
    return '{' . join(',', map { $_ . '="' . _escape($l->{$_}) . '"' } sort keys %$l) . '}';
}

sub _escape { $_[0] =~ s/([\\"])/\\$1/gr =~ s/\n/\\n/gr }

sub _value {
    my ($v) = @_;
    return 'NaN' unless defined $v;
    return $v =~ /\A-?\d+\z/ ? $v : 0 + sprintf('%.6g', $v);
}

1;
__END__

=head1 NAME

Kamado::Status::Metrics - the status process's /metrics, in Prometheus
text format

=head1 DESCRIPTION

Every family has C<# HELP> and C<# TYPE> lines; counters end in
C<_total>. The families: C<kamado_requests_total{class}> (1xx to 5xx,
including the errors the event loop answers itself),
C<kamado_request_duration_seconds> (a histogram: buckets from 1 ms to 60
s, cumulative, then C<+Inf>, C<_sum> and C<_count>),
C<kamado_received_bytes_total>, C<kamado_sent_bytes_total>,
C<kamado_workers{state}>, C<kamado_queue_depth{pool}>,
C<kamado_worker_exits_total{cause}> (max_requests, max_age, max_rss,
harakiri, request_timeout, crash, load_failed, idle, ttou,
graceful_timeout, stop), C<kamado_generation_starts_total{cause}> (start,
hup, replace), C<kamado_generation_exits_total{cause}> (exited, crashed,
killed), C<kamado_generations>, C<kamado_worker_memory_bytes{kind}> (the
live workers' private, shared and proportional memory, summed; each
worker's is in F</status.json>) and C<kamado_uptime_seconds>.

=cut
