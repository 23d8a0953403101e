# --access-log-format with a custom LogFormat: %D and %T (the app takes
# 0.3 s), %{X}i (a request header), %{X}o (a response header), %b and %B,
# %>s, %v, %a, %L (the request id the env holds, - when none) and
# %{NAME}e; each line parsed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $format = '%a|%D|%T|%{X-In}i|%{X-Out}o|%b|%B|%>s|%v|%L|%{PATH_INFO}e|%m %U%q %H';
my $server = start_server(args => ['--access-log', $log, '--access-log-format', $format], app => <<'APP');
use Time::HiRes ();
sub {
    my ($env) = @_;
    Time::HiRes::sleep(0.3) if $env->{PATH_INFO} eq '/slow';
    return [204, ['X-Out' => 'out-value'], []] if $env->{PATH_INFO} eq '/empty';
    # the id the server gave the request, if any (else one the app sets)
    $env->{'kamado.request_id'} //= 'set-by-app' if $env->{PATH_INFO} eq '/id';
    return [201, ['Content-Type' => 'text/plain', 'X-Out' => 'out-value'], [$env->{'kamado.request_id'} // 'no-id']];
}
APP

my $c = $server->connect;
my $buf = '';
my @bodies;
for my $r (["/slow?a=b", "X-In: in-value\r\n"], ["/empty", ''], ["/id", '']) {
    syswrite $c, "GET $r->[0] HTTP/1.1\r\nHost: x\r\n$r->[1]\r\n";
    my $res = read_response($c, buffer => \$buf);
    ok $res, "$r->[0] answered";
    push @bodies, $res && $res->{body};
}
close $c;
my @lines = wait_lines($log, 3);
is scalar(@lines), 3, 'three lines' or diag @lines;
chomp @lines;
my @f = map { [split /\|/, $_, -1] } @lines;
is scalar(@{ $f[0] }), 12, 'twelve fields' or diag $lines[0];

my ($addr, $us, $s, $in, $out, $b, $B, $status, $v, $id, $path, $req) = @{ $f[0] };
is $addr, '127.0.0.1', '%a: the client address';
ok $us =~ /\A\d+\z/ && $us >= 300_000 && $us < 10_000_000, "%D: microseconds, at least the app's 0.3 s ($us)";
is $s, int($us / 1_000_000), '%T: whole seconds of the same';
is $in, 'in-value', '%{X-In}i: the request header';
is $out, 'out-value', '%{X-Out}o: the response header';
is $b, length $bodies[0], '%b: the body bytes';
is $B, length $bodies[0], '%B: the same';
is $status, 201, '%>s: the status sent';
is $v, '127.0.0.1', '%v: the server name';
is $id, $bodies[0] eq 'no-id' ? '-' : $bodies[0], '%L: the request id the app saw, or - without one';
is $path, '/slow', '%{PATH_INFO}e: a key of the env';
is $req, 'GET /slow?a=b HTTP/1.1', '%m %U%q %H';

is_deeply [@{ $f[1] }[3, 4, 5, 6, 7]], ['-', 'out-value', '-', 0, 204], 'no body: %b is -, %B 0; no X-In: -';
ok $f[1][1] < 300_000, 'a fast request takes less (%D)';
is $f[2][9], $bodies[2], '%L: the id the request had';
isnt $f[2][9], '-', '%L is not - when the env holds an id';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
