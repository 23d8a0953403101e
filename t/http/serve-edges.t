# The loop serves plain requests with the app called from C
# (Kamado::Loop::serve) and hands every other one to Kamado::Server where
# it stopped. On keep-alive connections, plain GETs mixed with requests
# that leave that path before the app (a body, an Upgrade), after it (an
# app that dies, a delayed, a handle or an invalid answer, a refused
# head) or after the write (a cleanup handler, a body shorter than its
# Content-Length), through kamado and plackup -s Kamado: each answer is
# right, the access log has a line per request in order, the request id
# is the env's in $Kamado::Log::REQUEST_ID and in the app's log lines,
# and the plain ones were served from the loop (the app's caller is
# Kamado::Server::run, not handle_request).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);
use Kamado::Test::Plackup qw(start_plackup free_port);

Kamado::Test::allow_errors(
    qr{GET /die HTTP/1\.1: app died: boom},
    qr{GET /string HTTP/1\.1: app returned an invalid response},
    qr{GET /refused HTTP/1\.1: },
    qr{GET /short HTTP/1\.1: },
);

my $app = <<'APP';
use Kamado::Log;
my $cleaned = 0;
sub {
    my ($env) = @_;
    my $path = $env->{PATH_INFO};
    # who called the app (through plackup's middleware): the worker's
    # loop itself, or handle_request
    my $by = '-';
    for (my $i = 1; my @frame = caller $i; $i++) {
        next unless $frame[3] =~ /^Kamado::Server::(\w+)$/;
        $by = $1;
        last;
    }
    my $id = $env->{'kamado.request_id'};
    my $same = ($Kamado::Log::REQUEST_ID // '') eq $id ? 'same-id' : 'other-id';
    my $info = "$path by=$by id=$id $same cleaned=$cleaned";
    my @ct = ('Content-Type' => 'text/plain');
    Kamado::Log->warn("warned by $path") if $env->{QUERY_STRING} eq 'warn';
    die "boom\n" if $path eq '/die';
    return [200, \@ct, ["$info body=" . do { local $/; readline $env->{'psgi.input'} }]] if $path eq '/echo';
    return sub { $_[0]->([200, \@ct, ["$info delayed"]]) } if $path eq '/delayed';
    push @{ $env->{'psgix.cleanup.handlers'} }, sub { $cleaned++ } if $path eq '/cleanup';
    return [200, ["Bad Name" => 'x'], ['refused']] if $path eq '/refused';
    return [200, [@ct, 'Content-Length' => 100], ['short']] if $path eq '/short';
    if ($path eq '/handle') { open my $fh, '<', \"$info handle"; return [200, \@ct, $fh] }
    return "not a response" if $path eq '/string';
    return [200, \@ct, ["$info io=" . ($env->{'psgix.io'} ? 1 : 0)]] if $path eq '/upgrade';
    return [200, \@ct, [$info]];
}
APP

# [request, status, body pattern]
my @series = (
    ["GET /plain", 200, qr{^/plain by=run id=\S+ same-id cleaned=0$}],
    ["GET /plain?warn", 200, qr{^/plain by=run .* same-id}],
    ["POST /echo", 200, qr{^/echo by=handle_request .* same-id .* body=payload$}, "Content-Length: 7\r\n", 'payload'],
    ["GET /plain", 200, qr{^/plain by=run}],
    ["GET /die", 500, qr{}],
    ["GET /plain", 200, qr{^/plain by=run}],
    ["GET /delayed", 200, qr{^/delayed by=run .* same-id cleaned=0 delayed$}],
    ["GET /cleanup", 200, qr{^/cleanup by=run .* cleaned=0$}],
    ["GET /plain", 200, qr{^/plain by=run .* cleaned=1$}],
    ["GET /handle", 200, qr{^/handle by=run .* handle$}],
    ["GET /string", 500, qr{}],
    ["GET /upgrade", 200, qr{^/upgrade by=handle_request .* io=1$}, "Upgrade: websocket\r\nConnection: Upgrade\r\n"],
    ["GET /plain", 200, qr{^/plain by=run}],
    ["GET /refused", 500, qr{}],
    ["GET /plain", 200, qr{^/plain by=run}],
    ["HEAD /plain", 200, qr{^$}],
    ["GET /short", 200, qr{^short}],
    ["GET /plain", 200, qr{^/plain by=run .* cleaned=1$}],
);

sub run_series {
    my ($server, $log, $how) = @_;
    my ($c, $buf);
    my @ids;
    for my $r (@series) {
        my ($line, $status, $pattern, $fields, $body) = @$r;
        ($c, $buf) = ($server->connect, '') unless $c;
        syswrite $c, "$line HTTP/1.1\r\nHost: x\r\n" . ($fields // '') . "\r\n" . ($body // '');
        my $res = read_response($c, buffer => \$buf, head => scalar($line =~ /^HEAD/));
        is $res && $res->{status}, $status, "$how: $line: $status";
        like $res && $res->{body}, $pattern, "$how: $line: its body" if $res && $status == 200;
        push @ids, $res->{body} =~ /id=(\S+)/ ? $1 : undef if $res;
        # (a connection the server ends is left)
        undef $c if !$res || ($res->{headers}{connection} // '') eq 'close' || $line =~ /short/;
    }
    # consecutive ids: one per request, none skipped or repeated
    my @known = grep { defined } @ids;
    my ($prefix, $first) = $known[0] =~ /^(.*?)(\d+)$/;
    my @expect = map { defined $ids[$_] ? $prefix . ($first + $_) : undef } 0 .. $#ids;
    is_deeply \@ids, \@expect, "$how: one request id each, in order";
    like $server->log, qr/\[warn\].* \[\Q$ids[1]\E\]: warned by \/plain$/m,
        "$how: the app's log line has its request id";
    like $server->log, qr/\[error\].* \[\Q${prefix}\E\d+\]: GET \/die HTTP\/1\.1: app died: boom$/m,
        "$how: the died app's line has its request id";
    my @lines = wait_lines($log, scalar @series);
    my @f = map { parse_combined($_) } @lines;
    is_deeply [map { $_ && "$_->{request} $_->{status}" } @f], [map { "$_->[0] HTTP/1.1 $_->[1]" } @series],
        "$how: an access-log line per request, in order, with its status"
        or diag @lines;
    my ($plain) = grep { $_->{request} eq 'GET /plain HTTP/1.1' } @f;
    like $plain->{bytes}, qr/^\d+$/, "$how: the bytes of a plain answer";
}

{
    my $dir = File::Temp->newdir;
    my $server = start_server(args => ['--access-log', "$dir/access.log"], app => $app);
    run_series($server, "$dir/access.log", 'kamado');
    is $server->stop, 0, 'kamado stops cleanly';
}
{
    my $dir = File::Temp->newdir;
    my $port = free_port();
    my $server = start_plackup(
        port => $port, app => $app,
        args => [
            '-E', 'deployment', '--port', $port, '--host', '127.0.0.1', '--access_log', "$dir/access.log",
            '--access-log-format', 'combined'
        ]
    );
    run_series($server, "$dir/access.log", 'plackup -s Kamado');
    is $server->stop, 0, 'plackup stops cleanly';
}
done_testing;
