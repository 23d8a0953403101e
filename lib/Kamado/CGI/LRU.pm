package Kamado::CGI::LRU;
use 5.024;
use strict;
use warnings;

use Carp ();

# What a worker keeps of its CGI scripts, at most so many, the least
# recently used let go first: fork mode's zygotes
# (Kamado::CGI::Mode::Fork) and registry's compiled scripts
# (Kamado::CGI::InProcess::Scripts). What goes is handed to the owner's
# evict callback (a zygote is told to exit, a script's packages are
# deleted): the value is more than memory. Cache::LRU (Debian's
# libcache-lru-perl) drops entries without a word, hence this.

sub new {
    my ($class, %a) = @_;
    Carp::croak('Kamado::CGI::LRU: max is a count of at least 1') unless ($a{max} // '') =~ /\A[1-9][0-9]*\z/;
    return bless { max => $a{max}, evict => $a{evict}, entries => {}, clock => 0 }, $class;
}

# get(KEY) -> its value, now the most recently used; undef when not kept.
sub get {
    my ($self, $key) = @_;
    my $entry = $self->{entries}{$key} or return undef;
    $entry->[1] = ++$self->{clock};
    return $entry->[0];
}

# peek(KEY) -> its value, its place unchanged.
sub peek {
    my $entry = $_[0]{entries}{ $_[1] } or return undef;
    return $entry->[0];
}

# set(KEY, VALUE) -> VALUE, kept as the most recently used; a new KEY
# in a full cache first lets the least recently used go.
sub set {
    my ($self, $key, $value) = @_;
    $self->make_room unless $self->{entries}{$key};
    $self->{entries}{$key} = [$value, ++$self->{clock}];
    return $value;
}

# remove(KEY) -> the value KEY had, not kept any more (not evicted: the
# owner, who asks, deals with it).
sub remove {
    my ($self, $key) = @_;
    my $entry = delete $self->{entries}{$key} or return undef;
    return $entry->[0];
}

# make_room: while full, the least recently used goes (to evict), so
# that what is made next (a compile, a perl started) has its place.
sub make_room {
    my ($self) = @_;
    my $entries = $self->{entries};
    while (keys %$entries >= $self->{max}) {
        my ($oldest, $used);
        for (keys %$entries) {
            ($oldest, $used) = ($_, $entries->{$_}[1]) if !defined $used || $entries->{$_}[1] < $used;
        }
        my $entry = delete $entries->{$oldest};
        $self->{evict}->($oldest, $entry->[0]) if $self->{evict};
    }
    return;
}

sub count { scalar keys $_[0]{entries}->%* }
sub full  { keys $_[0]{entries}->%* >= $_[0]{max} ? 1 : 0 }
# max -> the most kept; max(N) -> the cache, N kept at most from the
# next set or make_room on.
sub max {
    my ($self, $max) = @_;
    return $self->{max} if @_ < 2;
    $self->{max} = $max;
    return $self;
}

1;
__END__

=head1 NAME

Kamado::CGI::LRU - at most so many of a worker's CGI scripts, the least recently used let go first

=head1 SYNOPSIS

    my $zygotes = Kamado::CGI::LRU->new(max => 32, evict => sub { my ($file, $z) = @_; retire($z) });
    my $z = $zygotes->get($file);          # undef, or now the most recently used
    $zygotes->make_room;                   # before starting a new one: the oldest goes
    $zygotes->set($file, start($file));
    $zygotes->remove($file);               # stale: the caller retires it itself

=head1 DESCRIPTION

One least-recently-used cache for what a worker keeps per CGI script:
fork mode's zygotes (L<Kamado::CGI::Mode::Fork>, at most 32) and
registry's compiled scripts (L<Kamado::CGI::InProcess::Scripts>, at
most C<$Kamado::CGI::InProcess::Scripts::MAX_COMPILED>, 200).

=over

=item new(max => N, evict => CODE)

N (at least 1) entries at most; CODE, if given, is called as
CODE->(KEY, VALUE) for each entry let go to make room.

=item get(KEY), peek(KEY)

The value kept for KEY, or undef. C<get> makes it the most recently
used; C<peek> does not.

=item set(KEY, VALUE)

Keeps VALUE as the most recently used (returned). A new KEY in a full
cache first evicts the least recently used (C<make_room>).

=item make_room

Evicts the least recently used entries while the cache is full, so
that an entry made next has its place: called before what is costly
to make, so that the old one goes before the new one exists.

=item remove(KEY)

Forgets KEY without calling evict, and returns its value.

=item count, full, max, max(N)

How many are kept, whether that is C<max>, and C<max>. C<max(N)> sets
it for the next C<set> or C<make_room> and returns the cache.

=back

A hit is a hash look-up and a counter; finding the least recently used
walks the entries, which happens only on a miss in a full cache.

=cut
