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
#
# It runs unchanged on other PSGI servers, as bench/ai-streams/run does:
# on Feersum (psgi.nonblocking, EV), which has no kamado.on_close and
# notices a client that left only when a write to it croaks; on a blocking
# server (Starman, a blocking Kamado pool), where each answer holds its
# worker until it ends.
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
    my $url = $UPSTREAM . (length($env->{QUERY_STRING} // '') ? "?$env->{QUERY_STRING}" : '');
    return sub {
        my ($responder) = @_;
        my ($writer, $call);
        my $done = AE::cv;
        # the client left (before or after the first token): cancel the
        # upstream call by dropping its guard, which closes its connection
        $env->{'kamado.on_close'}->(sub { undef $call }) if $env->{'kamado.on_close'};
        $call = http_request(
            GET       => $url,
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
                # a client that left: on Kamado, on_close has cancelled
                # the call; Feersum croaks here (stop reading). PSGI gives
                # write no value: Starman's is false, client or not
                return eval { $writer->write($data); 1 };
            },
            sub {
                my (undef, $headers) = @_;
                undef $call;
                $done->send;
                if ($writer) {
                    $writer->close;
                } elsif ($headers->{Status} =~ /\A59/) {
                    $responder->([502, ['Content-Type' => 'text/plain'], ["upstream: $headers->{Reason}\n"]]);
                }
            }
        );
        # a blocking server takes its next request when this returns: run
        # the loop until the answer has ended
        $done->recv unless $env->{'psgi.nonblocking'};
    };
};
