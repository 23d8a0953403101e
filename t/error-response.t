# Kamado::ErrorResponse: the one shape of the answers the server writes
# itself from Perl (the reason phrase and a newline, as the event loop's
# own answers), and no module building one by hand.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Find ();
use Kamado::Test ();
use Kamado::ErrorResponse qw(error_response);

is_deeply error_response(404), [404, ['Content-Type' => 'text/plain', 'Content-Length' => 10], ["Not Found\n"]],
    '404: the reason phrase, a newline, its length';
is_deeply error_response(504)->[2], ["Gateway Timeout\n"], '504: Gateway Timeout';
is_deeply error_response(416)->[2], ["Range Not Satisfiable\n"], '416 (HTTP::Status\'s phrase)';
is_deeply error_response(400, 'no Host')->[2], ["Bad Request: no Host\n"], 'with a detail';
is { @{ error_response(400, 'no Host')->[1] } }->{'Content-Length'}, 21, 'counted in Content-Length';

# a response built by hand: [NNN, [... 'text/plain' ...]
my @hand;
File::Find::find(
    {
        no_chdir => 1,
        wanted => sub {
            return unless /\.pm\z/ && !m{/ErrorResponse\.pm\z};
            open my $fh, '<', $_ or die "$_: $!";
            while (my $line = <$fh>) {
                push @hand, "$_:$.: $line" if $line =~ /\[\s*(?:[1-5]\d\d|\$\w+)\s*,\s*\[[^\]]*'text\/plain'\s*[,\]]/;
            }
        }
    },
    'lib'
);
is_deeply \@hand, [], 'no module builds a text/plain answer by hand' or diag @hand;
done_testing;
