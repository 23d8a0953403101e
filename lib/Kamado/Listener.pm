package Kamado::Listener;
use 5.024;
use strict;
use warnings;

use Carp ();
use Errno ();
use IO::Socket::IP;
use IO::Socket::UNIX;
use Kamado::Log;
use Plack::Util ();
use Socket qw(IPPROTO_TCP TCP_NODELAY SOL_SOCKET SO_REUSEADDR SOMAXCONN
    AF_INET AF_INET6 AF_UNIX sockaddr_family unpack_sockaddr_in unpack_sockaddr_in6
    unpack_sockaddr_un inet_ntop);

# A listening socket and what the app should see of it (SERVER_NAME,
# SERVER_PORT). Sockets are bound by the supervisor before it forks, or
# inherited from Server::Starter or systemd.

use constant TCP_DEFER_ACCEPT => 9;    # <netinet/tcp.h> on Linux

sub fd           { fileno $_[0]{socket} }
sub socket       { $_[0]{socket} }
sub host         { $_[0]{host} }
sub port         { $_[0]{port} }
sub path         { $_[0]{path} }
sub name         { defined $_[0]{path} ? $_[0]{path} : _host_port(@{$_[0]}{qw(host port)}) }
# --proxy-protocol: its connections start with a PROXY protocol header
sub proxy_protocol { $_[0]{proxy_protocol} }

# Binds one --listen value: "host:port", ":port", "port", "[v6]:port", or a
# unix socket path (anything with a slash, or "unix:PATH").
sub bind {
    my ($class, $spec, %opt) = @_;
    my $backlog = $opt{backlog} || SOMAXCONN;
    if ($spec =~ m{^unix:(.+)\z} || $spec =~ m{/}) {
        my $path = $1 // $spec;
        _clear_stale($path);
        my $sock = IO::Socket::UNIX->new(Local => $path, Listen => $backlog)
            or die "Can't listen on unix socket $path: $!\n";
        my @st = lstat $path or die "Can't stat unix socket $path: $!\n";
        # (dev, ino): at exit it is removed only if it is still this one
        return $class->_new($sock, path => $path, made => [@st[0, 1]], spec => $spec);
    }
    my ($host, $port) = $class->parse_address($spec);
    my $sock = IO::Socket::IP->new(
        LocalHost => $host eq '' ? undef : $host,
        LocalPort => $port,
        Listen    => $backlog,
        ReuseAddr => 1,
        ($host eq '' ? (Family => AF_INET) : ()),
    ) or die "Can't listen on " . _host_port($host, $port) . ": $@\n";
    # inherited by accepted sockets: every response leaves at once
    setsockopt($sock, IPPROTO_TCP, TCP_NODELAY, 1);
    # accept only once the request has arrived (Linux; harmless if refused)
    setsockopt($sock, IPPROTO_TCP, TCP_DEFER_ACCEPT, 1);
    return $class->_new($sock, spec => $spec);
}

# --proxy-protocol ADDRESS: marks the listeners ADDRESS names, spelt as
# --listen spells them: the same string as a --listen value, or the
# address bound (HOST:PORT with a numeric host, :PORT or PORT for any
# host, [IPv6]:PORT), or the unix socket's path (or unix:PATH). Inherited
# sockets are named by what they are bound to. Dies with one line when
# ADDRESS names none.
sub mark_proxy_protocol {
    my ($class, $specs, @listeners) = @_;
    for my $spec (@$specs) {
        my @hit = grep { $_->_named_by($spec) } @listeners;
        die "kamado: --proxy-protocol $spec names no listener (listening at "
            . join(', ', map { $_->name } @listeners) . ")\n" unless @hit;
        $_->{proxy_protocol} = 1 for @hit;
    }
}

sub _named_by {
    my ($self, $spec) = @_;
    return 1 if defined $self->{spec} && $spec eq $self->{spec};
    if ($spec =~ m{\Aunix:(.+)\z} || $spec =~ m{/}) {
        return defined $self->{path} && ($1 // $spec) eq $self->{path};
    }
    return 0 if defined $self->{path};
    my ($host, $port) = eval { $self->parse_address($spec) } or return 0;
    return 0 unless $port == $self->{port};
    return 1 if $host eq '';
    my $family = $host =~ /:/ ? AF_INET6 : AF_INET;
    my ($want, $have) = map { Socket::inet_pton($family, $_) } $host, $self->{host};
    return defined $want && defined $have && $want eq $have;
}

# A socket file left at $path is removed only when nothing listens on it
# (a previous run that was killed); one a live server listens on is
# refused, naming the path, never unlinked from under it.
sub _clear_stale {
    my ($path) = @_;
    return unless -S $path;
    my $probe = IO::Socket::UNIX->new(Peer => $path);
    die "Can't listen on unix socket $path: another server is listening on it\n" if $probe;
    die "Can't listen on unix socket $path: it exists and can't be probed ($!)\n"
        unless $!{ECONNREFUSED};
    unlink $path or die "Can't remove the stale unix socket $path: $!\n";
}

# --socket-mode, and the owner --user/--group give: for a unix socket
# this server made (not an inherited one).
sub set_access {
    my ($self, $mode, $uid, $gid) = @_;
    return unless $self->{made};
    my $path = $self->{path};
    chmod $mode, $path or die "Can't chmod unix socket $path: $!\n" if defined $mode;
    chown $uid // -1, $gid // -1, $path or die "Can't chown unix socket $path: $!\n" if defined $uid || defined $gid;
}

# At exit: removes a unix socket this server made, if the path still
# names it (not one a later server put there).
sub remove {
    my ($self) = @_;
    my $made = $self->{made} or return;
    my @st = lstat $self->{path} or return;
    return unless $st[0] == $made->[0] && $st[1] == $made->[1];
    unlink $self->{path} or Kamado::Log->warn("can't remove unix socket $self->{path}: $!");
}

# "host:port" -> (host, port); an empty host means every interface.
sub parse_address {
    my ($class, $spec) = @_;
    return ('', $spec) if $spec =~ /^\d+\z/;
    return ($1, $2) if $spec =~ /^\[([0-9a-fA-F:.]+)\]:(\d+)\z/;
    return ($1 // '', $2) if $spec =~ /^([^:\[\]]*):(\d+)\z/;
    die "Invalid --listen address '$spec': expected HOST:PORT, :PORT, [IPv6]:PORT or a socket path\n";
}

# Sockets passed by start_server (Server::Starter).
sub from_server_starter {
    my ($class) = @_;
    require Server::Starter;
    my $ports = Server::Starter::server_ports();
    return map { $class->from_fd($ports->{$_}) } sort { $ports->{$a} <=> $ports->{$b} } keys %$ports;
}

# Sockets passed by systemd socket activation (LISTEN_FDS, from fd 3).
sub from_systemd {
    my ($class) = @_;
    return () unless $ENV{LISTEN_FDS} && ($ENV{LISTEN_PID} // $$) == $$;
    my @listeners = map { $class->from_fd($_) } 3 .. 3 + $ENV{LISTEN_FDS} - 1;
    delete @ENV{qw(LISTEN_FDS LISTEN_PID LISTEN_FDNAMES)};
    return @listeners;
}

sub from_fd {
    my ($class, $fd) = @_;
    my $sock = IO::Socket::IP->new_from_fd($fd, 'r')
        or die "Can't use inherited socket fd $fd: $!\n";
    return $class->_new($sock);
}

sub _new {
    my ($class, $sock, %args) = @_;
    my $self = bless { socket => $sock, %args }, $class;
    if (!defined $self->{path}) {
        my $addr = getsockname($sock) or die "Can't getsockname on fd " . fileno($sock) . ": $!\n";
        my $family = sockaddr_family($addr);
        if ($family == AF_INET) {
            my ($port, $ip) = unpack_sockaddr_in($addr);
            @$self{qw(host port)} = (inet_ntop(AF_INET, $ip), $port);
        } elsif ($family == AF_INET6) {
            my ($port, $ip) = unpack_sockaddr_in6($addr);
            @$self{qw(host port)} = (inet_ntop(AF_INET6, $ip), $port);
        } elsif ($family == AF_UNIX) {
            $self->{path} = unpack_sockaddr_un($addr);
        }
    }
    return $self;
}

# The constant part of %env for requests on this socket; the C engine
# copies it for every request.
sub env_template {
    my ($self, %extra) = @_;
    return {
        SCRIPT_NAME            => '',
        SERVER_NAME            => defined $self->{path} ? 'localhost' : $self->{host},
        SERVER_PORT            => defined $self->{path} ? 0 : $self->{port},
        'psgi.version'         => [1, 1],
        'psgi.url_scheme'      => 'http',
        'psgi.errors'          => \*STDERR,
        'psgi.multithread'     => Plack::Util::FALSE(),
        'psgi.multiprocess'    => Plack::Util::TRUE(),
        'psgi.run_once'        => Plack::Util::FALSE(),
        'psgi.nonblocking'     => Plack::Util::FALSE(),
        'psgi.streaming'       => Plack::Util::TRUE(),
        'psgix.input.buffered' => Plack::Util::TRUE(),
        'psgix.harakiri'       => Plack::Util::TRUE(),
        'psgix.cleanup'        => Plack::Util::TRUE(),
        %extra,
    };
}

sub _host_port {
    my ($host, $port) = @_;
    $host //= '';
    return $host =~ /:/ ? "[$host]:$port" : "$host:$port";
}

1;
__END__

=head1 NAME

Kamado::Listener - a listening socket and its part of the PSGI environment

=head1 DESCRIPTION

One listening socket: bound from a B<--listen> value (C<bind>), or
inherited from Server::Starter or systemd; its name, the constant part of
C<%env> its requests get (C<env_template>), and whether it expects a
PROXY protocol header (C<proxy_protocol>, set by C<mark_proxy_protocol>
from B<--proxy-protocol>, which names listeners as B<--listen> does).

=cut
