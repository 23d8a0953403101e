package Kamado::Bench::StreamClient;
use 5.024;
use strict;
use warnings;

# The client side of bench/ai-streams/run: a thousand HTTP/1.0-style
# requests (Connection: close, the answer read to EOF) held open at once in
# one process on EV, with no more work per read than a sysread and an
# append, so that the clients take little of the CPU the servers are
# measured on.

use EV;
use Errno qw(EAGAIN EINPROGRESS EINTR EWOULDBLOCK);
use Socket qw(AF_INET SOCK_STREAM SOL_SOCKET SO_ERROR inet_aton pack_sockaddr_in);
use Time::HiRes ();

# get(port => PORT, path => PATH, timeout => SECONDS, on_read => sub {
# ($self, $bytes) }, on_end => sub { ($self, $error or undef) }) -> a
# request on its way. The body (and headers) is in $self->{body} unless
# on_read takes it; on_end is called once, at EOF or on an error.
sub get {
    my ($class, %a) = @_;
    my $self = bless { %a, body => '', start => Time::HiRes::time() }, $class;
    socket(my $fh, AF_INET, SOCK_STREAM, 0) or return $self->_end("socket: $!");
    $fh->blocking(0);
    $self->{fh} = $fh;
    if (!connect($fh, pack_sockaddr_in($a{port}, inet_aton('127.0.0.1'))) && $! != EINPROGRESS) {
        return $self->_end("connect: $!");
    }
    $self->{io} = EV::io($fh, EV::WRITE, sub { $self->_connected });
    $self->{timer} = EV::timer($a{timeout}, 0, sub { $self->_end('timeout') }) if $a{timeout};
    return $self;
}

sub _connected {
    my ($self) = @_;
    my $err = unpack 'i', getsockopt($self->{fh}, SOL_SOCKET, SO_ERROR) // pack 'i', 0;
    return $self->_end('connect: ' . ($! = $err)) if $err;
    my $req = "GET $self->{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    my $n = syswrite $self->{fh}, $req;
    return $self->_end("write: $!") if !defined $n || $n != length $req;    # (a few bytes: all at once)
    $self->{io} = EV::io($self->{fh}, EV::READ, sub { $self->_read });
}

sub _read {
    my ($self) = @_;
    my $n = sysread $self->{fh}, my $buf, 65536;
    if (!defined $n) {
        return if $! == EAGAIN || $! == EWOULDBLOCK || $! == EINTR;
        return $self->_end("read: $!");
    }
    return $self->_end(undef) if !$n;
    $self->{first} //= Time::HiRes::time();
    $self->{on_read} ? $self->{on_read}->($self, $buf) : ($self->{body} .= $buf);
}

sub _end {
    my ($self, $error) = @_;
    return $self if $self->{ended}++;
    $self->{took} = Time::HiRes::time() - $self->{start};
    delete @$self{qw(io timer)};
    close delete $self->{fh} if $self->{fh};
    $self->{on_end}->($self, $error) if $self->{on_end};
    return $self;
}

# The client leaves: the socket closed at once, whatever the server sends.
sub vanish {
    my ($self) = @_;
    return if $self->{ended}++;
    delete @$self{qw(io timer on_end)};
    close delete $self->{fh} if $self->{fh};
}

sub is_open { $_[0]{fh} && !$_[0]{ended} ? 1 : 0 }

1;
__END__

=head1 NAME

Kamado::Bench::StreamClient - many HTTP requests held open in one EV process

=head1 SYNOPSIS

    my $c = Kamado::Bench::StreamClient->get(port => $port, path => '/ai/stream', timeout => 60,
        on_end => sub { my ($c, $error) = @_; ... $c->{body} ... });
    EV::run;
    $c->vanish;    # the client leaves mid-answer

=head1 DESCRIPTION

One request per connection (C<Connection: close>), read until the
server closes it. C<< $c->{first} >> is when the first bytes came, C<<
$c->{took} >> how long the whole took.

=cut
