# The smallest PSGI app: a fixed body with its length.
my $app = sub {
    return [200, ['Content-Type' => 'text/plain', 'Content-Length' => 11], ['Hello World']];
};
