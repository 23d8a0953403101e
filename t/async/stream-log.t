# An async worker's streams each end when they end, after other requests
# of the same worker were served: each one's access-log line is its own
# (its request id, status, body bytes, response headers, start and
# duration), in the format the loop makes and in one the Perl compiler
# makes (%{FORMAT}t), and the request served meanwhile keeps its own; an
# error line about a stream carries the stream's request id, not the id
# of the request whose app happened to end it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use AnyEvent;
use AnyEvent::Handle;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines);

Kamado::Test::allow_errors(qr{GET /cut HTTP/1\.1: body shorter than its Content-Length});

my $APP = <<'APP';
use AnyEvent;
my %writer;
sub {
    my ($env) = @_;
    my $id = $env->{'kamado.request_id'};
    my $p = $env->{PATH_INFO};
    if ($p eq '/fast') {
        # (ends the /cut stream from this request's app call)
        $writer{cut}->close if $writer{cut};
        return [200, ['X-Id' => $id, 'Content-Type' => 'text/plain'], ["fast\n"]];
    }
    return sub { $_[0]->([202, ['X-Id' => $id], ["now $id\n"]]) } if $p eq '/now';
    return sub {
        my ($r) = @_;
        my $t;
        $t = AE::timer 0.5, 0, sub { undef $t; $r->([201, ['X-Id' => $id], ["later $id\n"]]) };
    } if $p eq '/later';
    return sub {
        my $w = $_[0]->([200, ['Content-Length' => 10, 'X-Id' => $id]]);
        $w->write('12345');
        $writer{cut} = $w;
    } if $p eq '/cut';
    my $secs = $p eq '/a' ? 2 : 1.5;
    return sub {
        my $w = $_[0]->([200, ['Content-Type' => 'text/plain', 'X-Id' => $id]]);
        $w->write("id $id\n");
        my $t;
        $t = AE::timer $secs, 0, sub { undef $t; $w->write("end\n"); $w->close };
    };
}
APP

# /a and /b stream at the same time and /cut waits; once all three have
# begun, /now, /later, then /fast (which ends /cut) are served meanwhile.
sub run_requests {
    my ($port) = @_;
    my $cv = AE::cv;
    my (%body, $others);
    my $started = sub {
        return if $others || grep { ($body{$_} // '') !~ /id \S+\n|12345/ } '/a', '/b', '/cut';
        $others = AE::timer 0, 0, sub {
            for my $p ('/now', '/later', '/fast') {
                my $res = read_response($::SERVER->send_get($p), timeout => 10);
                $body{$p} = $res && $res->{body};
            }
        };
    };
    for my $p ('/a', '/b', '/cut') {
        $cv->begin;
        my $h;
        $h = AnyEvent::Handle->new(
            connect  => ['127.0.0.1', $port],
            timeout  => 30,
            on_error => sub { undef $h; $cv->end },
            on_eof   => sub { undef $h; $cv->end },
            on_read  => sub { $body{$p} .= delete $_[0]{rbuf}; $started->() },
        );
        $h->push_write("GET $p HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
    $cv->recv;
    return \%body;
}

for my $format (
    '%L %{kamado.request_id}e "%r" %>s %b %{X-Id}o %t %D',
    '%L %{kamado.request_id}e "%r" %>s %b %{X-Id}o %{%s}t %D'
    )
{
    my $dir = File::Temp->newdir;
    my $log = "$dir/access.log";
    local $::SERVER = start_server(
        app => $APP, workers => 1,
        args => ['--async', '--access-log', $log, '--access-log-format', $format]
    );
    my $t0 = time;
    my $body = run_requests($::SERVER->port);
    my ($a_id) = ($body->{'/a'} // '') =~ /id (\S+)/;
    my ($b_id) = ($body->{'/b'} // '') =~ /id (\S+)/;
    my ($now_id) = ($body->{'/now'} // '') =~ /now (\S+)/;
    my ($later_id) = ($body->{'/later'} // '') =~ /later (\S+)/;
    ok $a_id && $b_id && $now_id && $later_id, "$format: the app saw each request's id";
    my @lines = wait_lines($log, 6);
    is scalar(@lines), 6, "$format: six lines" or diag @lines;
    my %line = map { /"GET (\S+) HTTP\/1\.1"/ ? ($1 => $_) : () } @lines;
    my @cases = (
        ['/a', $a_id, 200, "id $a_id\nend\n", 2], ['/b', $b_id, 200, "id $b_id\nend\n", 1.5],
        ['/now', $now_id, 202, "now $now_id\n", 0], ['/later', $later_id, 201, "later $later_id\n", 0.5]
    );
    for my $case (@cases) {
        my ($p, $id, $status, $sent, $secs) = @$case;
        my $bytes = length $sent;
        my ($l_id, $e_id, $st, $b, $x, $usec) =
            ($line{$p} // '') =~ /\A(\S+) (\S+) "[^"]*" (\d+) (\S+) (\S+) \[[^\]]*\] (\d+)$/;
        is "$l_id $e_id", "$id $id", "$format: $p: %L and %{kamado.request_id}e are its own";
        is "$st $b $x", "$status $bytes $id", "$format: $p: status, body bytes and %{X-Id}o are its own";
        cmp_ok $usec / 1e6, '>=', $secs * 0.9, "$format: $p: %D from its own start (@{[$usec / 1e6]} s)";
        cmp_ok $usec / 1e6, '<', $secs + 5, "$format: $p: and not from an earlier one";
    }
    my ($f_id, $f_x, $f_usec) = ($line{'/fast'} // '') =~ /\A(\S+) \S+ "[^"]*" 200 5 (\S+) \[[^\]]*\] (\d+)$/;
    ok $f_id && $f_id eq $f_x, "$format: /fast, served while /cut ended in its app call, has its own line"
        or diag $line{'/fast'};
    cmp_ok $f_usec // 1e9, '<', 0.4e6, "$format: /fast: its %D is its own (not /cut's, which started earlier)";
    my ($cut_id) = ($line{'/cut'} // '') =~ /\A(\S+) \S+ "GET \/cut HTTP\/1\.1" 200 5 \1 /;
    ok $cut_id, "$format: /cut: its line, with its own id in %L and %{X-Id}o" or diag $line{'/cut'};
    is $::SERVER->stop, 0, "$format: stops";
    my ($err) = $::SERVER->log =~ /^(.*GET \/cut HTTP\/1\.1: body shorter than its Content-Length.*)$/m;
    like $err // '', qr/ \[\Q@{[$cut_id \/\/ '?']}\E\]: GET \/cut /,
        "$format: the error line about /cut carries /cut's id"
        or diag $::SERVER->log;
}
# a HEAD of a stream: no body bytes sent, none logged
my $dir = File::Temp->newdir;
my $server = start_server(app => $APP, workers => 1, args => ['--async', '--access-log', "$dir/access.log"]);
my $c = $server->connect;
syswrite $c, "HEAD /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $head = read_response($c, head => 1, timeout => 10);
is $head && $head->{status}, 200, 'HEAD of a stream';
my ($line) = wait_lines("$dir/access.log", 1);
like $line // '', qr{"HEAD /b HTTP/1\.1" 200 - }, 'is logged with no body bytes (-)';
is $server->stop, 0, 'stops';
done_testing;
