# An SSE proxy of a slow AI upstream, for kamado --async: each answer is
# relayed token by token as it arrives, a thousand of them per worker, and
# the upstream call is cancelled as soon as the client leaves.
#
#   kamado --async --workers 1 -l 127.0.0.1:5001 bench/ai-streams/upstream.psgi &
#   AI_UPSTREAM=http://127.0.0.1:5001/v1/stream kamado --async examples/ai-stream.psgi
#   curl -N http://127.0.0.1:5000/ai/stream
#
# /ai/stream streams (its query string is passed on); any other path is a
# fast route that answers at once.
use strict;
use warnings;
use AnyEvent;
use AnyEvent::HTTP;

my $UPSTREAM = $ENV{AI_UPSTREAM} // 'http://127.0.0.1:5001/v1/stream';
# AnyEvent::HTTP queues all but 4 calls to one host by default: one per
# stream here, a thousand at once
$AnyEvent::HTTP::MAX_PER_HOST = 10_000;

sub {
    my ($env) = @_;
    return [200, ['Content-Type' => 'text/plain'], ["fast\n"]] if $env->{PATH_INFO} ne '/ai/stream';
    die "ai-stream.psgi needs an async worker (kamado --async)\n" unless $env->{'psgi.nonblocking'};
    my $url = $UPSTREAM . (length($env->{QUERY_STRING} // '') ? "?$env->{QUERY_STRING}" : '');
    return sub {
        my ($responder) = @_;
        my ($writer, $call);
        # the client left (before or after the first token): cancel the
        # upstream call by dropping its guard, which closes its connection
        $env->{'kamado.on_close'}->(sub { undef $call });
        $call = http_request GET => $url,
            timeout   => 30,
            on_header => sub {
                my ($headers) = @_;
                if ($headers->{Status} != 200) {
                    $responder->([502, ['Content-Type' => 'text/plain'], ["upstream: $headers->{Status}\n"]]);
                    return 0;
                }
                $writer = $responder->([200, ['Content-Type' => 'text/event-stream', 'Cache-Control' => 'no-cache']]);
                return 1;
            },
            on_body => sub {
                my ($data) = @_;
                return $writer->write($data);    # false (client gone): stop reading
            },
            sub {
                my (undef, $headers) = @_;
                undef $call;
                if ($writer) {
                    $writer->close;
                } elsif ($headers->{Status} =~ /\A59/) {
                    $responder->([502, ['Content-Type' => 'text/plain'], ["upstream: $headers->{Reason}\n"]]);
                }
            };
    };
};
