# The env keys of request field names, made once per name a worker sees
# and kept by name as it came (xs/env.c): whatever names came before, and
# in whatever case, each request's env holds exactly its own fields. Many
# names (more than are kept, so that one replaces another), the same name
# in other cases (one key, the values joined), names too long to keep,
# underscored names (dropped) and Content-Type/-Length in any case, over
# one connection and the requests that follow.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my @keys = sort grep { /^(?:HTTP_|CONTENT_)/ } keys %$env;
    [200, ['Content-Type' => 'text/plain'], [join '', map { "$_=$env->{$_}\n" } @keys]];
}
APP

srand 22;
my @names = (
    (map {"X-N$_"} 1 .. 70),
    (map { 'X-' . ('Long' x 9) . $_ } 1 .. 3),
    'X_Under', 'x_under_2', 'Content-Type', 'Content-Length', 'Accept', 'User-Agent',
);
my $case = sub {
    my ($n) = @_;
    my $r = int rand 3;
    return $r == 0 ? $n : $r == 1 ? lc $n : join '', map { rand() < 0.5 ? uc : lc } split //, $n;
};
my $c = $server->connect;
for my $round (1 .. 8) {
    my (@fields, %want, $cl);
    for (1 .. 5 + int rand 40) {
        my $name = $names[rand @names];
        next if $name =~ /^content-length$/i;
        my $value = "v$round-" . int rand 1000;
        push @fields, [$case->($name), $value];
    }
    push @fields, [$case->('Content-Length'), 0] if $round % 2;
    for my $f (@fields) {
        my ($name, $value) = @$f;
        next if $name =~ /_/;
        my $key = $name =~ /^content-(?:length|type)$/i ? uc($name) =~ tr/-/_/r : 'HTTP_' . (uc($name) =~ tr/-/_/r);
        $want{$key} = defined $want{$key} ? "$want{$key}, $value" : $value;
    }
    $want{HTTP_HOST} = 'h';
    syswrite $c, "GET /$round HTTP/1.1\r\nHost: h\r\n" . join('', map {"$_->[0]: $_->[1]\r\n"} @fields) . "\r\n";
    my $res = read_response($c, timeout => 10);
    is $res && $res->{body}, join('', map {"$_=$want{$_}\n"} sort keys %want),
        "request $round (" . scalar(@fields) . ' fields): exactly its own, by name in any case';
}

done_testing;
