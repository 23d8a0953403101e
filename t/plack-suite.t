# Plack's own server conformance suite, through plackup's loader
# (Plack::Handler::Kamado), with one and two workers, over HTTP/1.1 and
# HTTP/1.0.
use strict;
use warnings;
use Test::More;
use Plack::Test::Suite;
use HTTP::Tiny;

# HTTP::Tiny only speaks HTTP/1.1; for the 1.0 rounds its request line is
# rewritten (the way Gazelle's tests do it).
my $protocol = 'HTTP/1.1';
{
    no warnings 'redefine';
    my $orig = \&HTTP::Tiny::Handle::write_header_lines;
    *HTTP::Tiny::Handle::write_header_lines = sub {
        my ($self, $headers, $case, $prefix) = @_;
        $prefix =~ s{ HTTP/1\.1\r\n\z}{ $protocol\r\n} if defined $prefix;
        return $orig->($self, $headers, $case, $prefix);
    };
}

for my $workers (1, 2) {
    for my $proto ('HTTP/1.1', 'HTTP/1.0') {
        subtest "$workers worker(s), $proto" => sub {
            $protocol = $proto;
            Plack::Test::Suite->run_server_tests('Kamado', undef, undef, workers => $workers);
        };
    }
}
done_testing;
