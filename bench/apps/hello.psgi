# Minimal "Hello World" PSGI app (benchmark seed 003, from a Japanese blog post).
# The body is exactly 11 bytes: "Hello World".
my $app = sub {
    my $env = shift;
    return [
        200,
        [ 'Content-Type' => 'text/plain', 'Content-Length' => 11 ],
        ["Hello World"],
    ];
};
