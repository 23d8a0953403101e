package Kamado::Test::Nginx;
use 5.024;
use strict;
use warnings;

# nginx (Debian's nginx-light) in front of a test Kamado, configured by
# examples/nginx.conf itself: its upstream pointed at the test server
# (unix socket, or TCP with proxy_pass to the kamado_tcp upstream), its
# listen at a free loopback port, wrapped in a main config that keeps
# everything (pid, logs, temporary files) in a temporary directory. nginx
# runs in the foreground as the test's child and is stopped by its PID.

use Exporter 'import';
use File::Temp ();
use IO::Socket::IP;
use POSIX ();
use Time::HiRes ();
use Kamado::Test ();
use Kamado::Test::CLI qw($ROOT);
use Kamado::Test::Plackup qw(free_port);

our @EXPORT_OK = qw(start_nginx);

my $NGINX = '/usr/sbin/nginx';

# start_nginx(unix => PATH) or (tcp => PORT): an object with ->port,
# ->pid, ->connect, ->error_log, ->stop; dies when nginx does not start.
sub start_nginx {
    my (%opt) = @_;
    die "$NGINX is not installed (Debian's nginx-light; dev/deps installs it)\n" unless -x $NGINX;
    my $dir = File::Temp->newdir;
    my $port = free_port();
    open my $in, '<', "$ROOT/examples/nginx.conf" or die $!;
    my $conf = do { local $/; <$in> };
    my $n = 0;
    $n += $conf =~ s{server unix:/run/kamado\.sock;}{server unix:$opt{unix};} if $opt{unix};
    $n += $conf =~ s{server 127\.0\.0\.1:5000;}{server 127.0.0.1:$opt{tcp};} if $opt{tcp};
    $n += $conf =~ s{proxy_pass http://kamado;}{proxy_pass http://kamado_tcp;}g if $opt{tcp};
    $conf =~ s{listen 80;}{listen 127.0.0.1:$port;} or die 'no listen 80 in examples/nginx.conf';
    $conf =~ s{root /srv/myapp/public;}{root $dir/public;};
    die 'examples/nginx.conf: the upstream is not where t/lib/Kamado/Test/Nginx.pm looks' unless $n;
    _spit("$dir/kamado.conf", $conf);
    my $temp = join '', map { "    ${_}_temp_path $dir/$_;\n" } qw(client_body proxy fastcgi uwsgi scgi);
    _spit("$dir/nginx.conf", <<"CONF");
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log info;
@{[ $> == 0 ? 'user root;' : '' ]}
events { worker_connections 256; }
http {
    access_log $dir/access.log;
$temp    include $dir/kamado.conf;
}
CONF
    my $pid = fork // die "Can't fork: $!";
    if (!$pid) {
        open STDOUT, '>>', "$dir/error.log" or POSIX::_exit(111);
        open STDERR, '>&', \*STDOUT or POSIX::_exit(111);
        Kamado::set_parent_death_signal(POSIX::SIGTERM());
        exec $NGINX, '-p', "$dir/", '-e', "$dir/error.log", '-c', "$dir/nginx.conf" or POSIX::_exit(111);
    }
    my $self = bless { pid => $pid, port => $port, dir => $dir }, __PACKAGE__;
    my $deadline = Time::HiRes::time() + 20;
    until (IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port)) {
        die "nginx exited:\n" . $self->error_log if waitpid($pid, POSIX::WNOHANG()) == $pid;
        die "nginx did not start:\n" . $self->error_log if Time::HiRes::time() > $deadline;
        Time::HiRes::sleep(0.02);
    }
    return $self;
}

sub _spit { open my $fh, '>', $_[0] or die "$_[0]: $!"; print $fh $_[1]; close $fh or die $! }

sub port { $_[0]{port} }
sub pid  { $_[0]{pid} }
sub dir  { "$_[0]{dir}" }

sub connect {
    my ($self) = @_;
    my $sock = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $self->{port})
        or die "Can't connect to nginx: $!";
    $sock->autoflush(1);
    return $sock;
}

sub error_log {
    my ($self) = @_;
    open my $fh, '<', "$self->{dir}/error.log" or return '';
    local $/;
    return <$fh> // '';
}

# QUIT (nginx's graceful stop), then KILL after 10 s; returns $?.
sub stop {
    my ($self) = @_;
    return $self->{status} if exists $self->{status};
    kill QUIT => $self->{pid};
    my $deadline = Time::HiRes::time() + 10;
    while (Time::HiRes::time() < $deadline) {
        return $self->{status} = $? if waitpid($self->{pid}, POSIX::WNOHANG()) == $self->{pid};
        Time::HiRes::sleep(0.02);
    }
    kill KILL => $self->{pid};
    waitpid $self->{pid}, 0;
    return $self->{status} = -1;
}

sub DESTROY { local $?; $_[0]->stop if $_[0]{pid} }

1;
