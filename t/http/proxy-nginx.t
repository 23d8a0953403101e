# A real nginx in front of kamado: the app sees the client address nginx
# saw. The client connects to nginx from 127.0.0.2 (all of 127/8 is
# loopback) and nginx to kamado from 127.0.0.1, the one --trusted-proxy:
#   - http {}: proxy_pass with X-Forwarded-For $proxy_add_x_forwarded_for
#     and X-Forwarded-Proto; a client's own forged X-Forwarded-For is left
#     of nginx's and never read; a client's own X-Forwarded-Host and -Port,
#     which this nginx passes through as it sets neither, do not reach
#     HTTP_HOST, SERVER_NAME or SERVER_PORT (kamado has no
#     --forwarded-host);
#   - the same with examples/nginx.conf's settings, which set both, and a
#     kamado given --forwarded-host: the host and port the client used;
#   - stream {}: proxy_protocol on to a --proxy-protocol listener (nginx's
#     stream module, Debian's libnginx-mod-stream): REMOTE_ADDR and
#     REMOTE_PORT are the client's own socket's.
# nginx runs from a config in a temporary directory, in the foreground,
# and is stopped by its PID.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::IP;
use POSIX ();
use Time::HiRes ();
use Kamado::Test qw(eventually);
use Kamado::Test::HTTP qw(read_until_close);
use Kamado::Test::Proxy qw(start_proxied env_of request);

my ($nginx) = grep { -x } map { "$_/nginx" } split(/:/, $ENV{PATH} // ''), '/usr/sbin';
ok $nginx, 'nginx is installed (dev/deps: nginx-light)' or BAIL_OUT('no nginx');
my $stream_module = '/usr/lib/nginx/modules/ngx_stream_module.so';
ok -f $stream_module, 'nginx has its stream module (dev/deps: libnginx-mod-stream)';

my $kamado = start_proxied(args => ['--trusted-proxy', '127.0.0.1/32']);
my $kamado_fh = start_proxied(args => ['--trusted-proxy', '127.0.0.1/32', '--forwarded-host']);
# the proxy_set_header lines of script/kamado's POD, and of examples/nginx.conf
my ($pod_headers) = do { local (@ARGV, $/) = 'script/kamado'; <> } =~ /^=head1 BEHIND A PROXY.*?^    location \/ \{\n(.*?)^    \}/ms
    or die 'no nginx snippet in the POD';
my $example_headers = join '', grep { /^\s*proxy_set_header (?:Host|X-)/ }
    do { open my $in, '<', 'examples/nginx.conf' or die $!; <$in> };
$_ = join '', map { "            $_\n" } grep { /proxy_set_header/ } map { s/^\s+//r } split /\n/ for $pod_headers, $example_headers;
like $example_headers, qr/X-Forwarded-Host \$host;.*X-Forwarded-Port \$server_port;/s,
    'examples/nginx.conf sets X-Forwarded-Host and -Port';
is $pod_headers, $example_headers, 'the nginx snippet of the POD sets the same fields';

my $dir = tempdir(CLEANUP => 1);
my @free = map { IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 1) or die $@ } 1 .. 3;
my ($http_port, $stream_port, $example_port) = map { $_->sockport } @free;
close $_ for @free;
my $load = -f $stream_module ? "load_module $stream_module;" : '';
my $stream = -f $stream_module ? <<"STREAM" : '';
stream {
    server {
        listen 127.0.0.1:$stream_port;
        proxy_pass 127.0.0.1:$kamado->{proxy_port};
        proxy_protocol on;
    }
}
STREAM
open my $fh, '>', "$dir/nginx.conf" or die $!;
print $fh <<"CONF";
$load
daemon off;
master_process off;
pid $dir/nginx.pid;
error_log $dir/error.log info;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$http_port;
        location / {
            proxy_pass http://127.0.0.1:${\ $kamado->port};
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto https;
        }
    }
    server {
        listen 127.0.0.1:$example_port;
        location / {
            proxy_pass http://127.0.0.1:${\ $kamado_fh->port};
$example_headers        }
    }
}
$stream
CONF
close $fh;

my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open STDOUT, '>>', "$dir/stdout.log" or POSIX::_exit(111);
    open STDERR, '>&', \*STDOUT or POSIX::_exit(111);
    exec $nginx, '-p', $dir, '-e', "$dir/error.log", '-c', "$dir/nginx.conf" or POSIX::_exit(111);
}
my $up = eventually(sub {
    return 0 if waitpid($pid, POSIX::WNOHANG()) > 0;
    IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $http_port) ? 1 : 0;
}, 10);
ok $up, 'nginx is up' or diag `cat $dir/error.log $dir/stdout.log 2>/dev/null`;

# a client on 127.0.0.2: (its port, what the app said)
sub through {
    my ($port, $bytes) = @_;
    my $c = IO::Socket::IP->new(LocalHost => '127.0.0.2', PeerHost => '127.0.0.1', PeerPort => $port)
        or return (0, undef, "can't connect: $@");
    syswrite $c, $bytes;
    my ($got) = read_until_close($c);
    return ($c->sockport, env_of($got), $got);
}

SKIP: {
    skip 'nginx did not start', 14 unless $up;
    my ($cport, $env, $got) = through($http_port, request('X-Forwarded-Host' => 'evil.example', 'X-Forwarded-Port' => 8443));
    ok $env, 'http: a client\'s own X-Forwarded-Host and -Port, served' or diag $got;
    is $env->{HTTP_HOST}, 'kamado.test', 'http: HTTP_HOST is the Host nginx sent, not the client\'s X-Forwarded-Host';
    is $env->{SERVER_NAME}, '127.0.0.1', 'http: SERVER_NAME is the listener\'s, not the client\'s X-Forwarded-Host';
    is $env->{SERVER_PORT}, 443, 'http: SERVER_PORT follows X-Forwarded-Proto, not the client\'s X-Forwarded-Port';

    ($cport, $env, $got) = through($example_port, request('X-Forwarded-Host' => 'evil.example', 'X-Forwarded-Port' => 8443));
    is "$env->{HTTP_HOST} $env->{SERVER_NAME} $env->{SERVER_PORT}", "kamado.test kamado.test $example_port",
        'examples/nginx.conf and --forwarded-host: the host and port the client used, as nginx set them';

    ($cport, $env, $got) = through($http_port, request('X-Forwarded-For' => '6.6.6.6'));
    ok $env, 'http: served through nginx' or diag $got;
    is $env->{REMOTE_ADDR}, '127.0.0.2', 'http: REMOTE_ADDR is the client nginx saw';
    is $env->{HTTP_X_FORWARDED_FOR}, '6.6.6.6, 127.0.0.2', 'http: nginx appended it to the forged one';
    is $env->{'kamado.peer_addr'}, '127.0.0.1', 'http: the peer was nginx';
    is "$env->{'psgi.url_scheme'} $env->{HTTPS}", 'https on', 'http: X-Forwarded-Proto from nginx';

    skip 'no stream module', 3 unless -f $stream_module;
    ($cport, $env, $got) = through($stream_port, request());
    ok $env, 'stream: served through nginx with proxy_protocol on' or diag $got;
    is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", "127.0.0.2 $cport", 'stream: REMOTE_ADDR and REMOTE_PORT are the client\'s socket\'s';
    is $env->{'kamado.peer_addr'}, '127.0.0.1', 'stream: the peer was nginx';
}

kill TERM => $pid;
my $gone = eventually(sub { waitpid($pid, POSIX::WNOHANG()) > 0 }, 10);
ok $gone, 'nginx stopped by its PID';
if (!$gone) { kill KILL => $pid; waitpid $pid, 0 }
done_testing;
