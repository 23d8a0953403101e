# A fake AI upstream: an answer as server-sent events, one token every
# 50 ms for about 10 s (200 tokens), as a slow model streams it. Run it
# under kamado --async (one worker holds a thousand answers):
#
#   kamado --async --workers 1 -l 127.0.0.1:5001 bench/ai-streams/upstream.psgi
#
# GET /v1/stream?tokens=N&interval=S: N tokens (default 200), S seconds
# apart (default 0.05). A client that leaves mid-answer is logged, with
# how many tokens it had: "upstream: cancelled after N tokens", so a proxy
# in front of it can be checked to cancel its call; so is each answer's
# start and end ("upstream: answering", "upstream: answered N tokens"), to
# count the calls open at a time.
use strict;
use warnings;
use AnyEvent;

my @WORDS = qw(the server keeps every stream on one loop and notices when a client leaves);

sub {
    my ($env) = @_;
    my %q = map { split /=/, $_, 2 } grep { /=/ } split /&/, $env->{QUERY_STRING} // '';
    my $tokens = $q{tokens} && $q{tokens} =~ /\A\d+\z/ ? $q{tokens} : 200;
    my $interval = $q{interval} && $q{interval} =~ /\A[\d.]+\z/ ? $q{interval} : 0.05;
    return sub {
        my ($responder) = @_;
        my $w = $responder->([200, ['Content-Type' => 'text/event-stream', 'Cache-Control' => 'no-cache']]);
        my ($sent, $timer) = (0);
        print STDERR "upstream: answering\n";
        $w->on_close(sub {
            undef $timer;
            print STDERR "upstream: cancelled after $sent tokens\n";
        });
        $timer = AE::timer $interval, $interval, sub {
            if ($sent >= $tokens) {
                undef $timer;
                $w->write("data: [DONE]\n\n");
                print STDERR "upstream: answered $sent tokens\n";
                return $w->close;
            }
            $w->write('data: ' . $WORDS[$sent % @WORDS] . "\n\n") and $sent++;
        };
    };
};
