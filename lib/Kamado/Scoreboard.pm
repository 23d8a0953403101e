package Kamado::Scoreboard;
use 5.024;
use strict;
use warnings;

use Kamado ();    # the class is in the XS (xs/Scoreboard.xsh, src/kd_scoreboard.c)

1;
__END__

=head1 NAME

Kamado::Scoreboard - what each worker is doing, in shared memory

=head1 SYNOPSIS

    # the generation, before forking
    my $board = Kamado::Scoreboard->new(16);
    $board->publish('/run/kamado.scoreboard');    # a copy for outside readers
    $board->claim($slot, $generation);    # then fork; in the parent:
    $board->set_pid($slot, $pid);
    $loop->scoreboard($board, $slot);     # in the worker (Kamado::Loop)
    $board->clear($slot);                 # after reaping
    $board->refresh;                      # now and then: the copy rewritten

    # anyone, from a --scoreboard file
    my $board = Kamado::Scoreboard->attach('/run/kamado.scoreboard') or die $!;
    for my $w (grep { $_->{state} ne 'free' } $board->slots) {
        printf "%d %s %.1fs %s\n", @$w{qw(pid state seconds request)};
    }

=head1 DESCRIPTION

One anonymous shared mapping, made by the generation before it forks, with a
fixed-size slot per possible worker. A worker's event loop (C) writes its
own slot with plain stores, the state last; readers may see a request line
torn while it changes. See L<kamado/SCOREBOARD> for what the fields mean.

Only the generation and its workers can write the mapping. Outside readers
get a copy in a file, which the generation rewrites in place: what another
user does to that file (writes a pid in it, truncates it, replaces it)
never reaches the mapping the generation acts on.

=head1 METHODS

=over

=item new(SLOTS)

Maps a new scoreboard with SLOTS free slots in anonymous shared memory,
shared with the processes forked after. Croaks on failure.

=item publish(FILE)

Writes a copy of the board to a new file (made with C<O_EXCL> under a
random name in FILE's directory, mode 0600), then renames it over FILE:
whatever was at FILE, a file or a symbolic link, is replaced, never
opened or followed. Croaks on failure.

=item refresh

Rewrites the published copy in place (C<pwrite>; a truncated file is
written whole again). True, or false with C<$!> set; true when nothing is
published.

=item attach(FILE)

Maps an existing scoreboard file read-only; undef with C<$!> set (EINVAL
for a file that is not a scoreboard of this version).

=item slots

Every slot as a hash reference: C<slot>, C<pid>, C<generation>, C<state>
(C<free>, C<starting>, C<idle>, C<reading>, C<app>, C<writing>,
C<draining>),
C<connections>, C<requests>, C<seconds> (in this state) and C<request>.

=item size, generation_pid

The number of slots; the pid of the process that made the scoreboard:
the generation process whose workers these are (under kamado, its
parent is the supervisor to signal). A new generation (HUP) makes a new
scoreboard, published over a B<--scoreboard> file.

=item claim(SLOT, GENERATION), set_pid(SLOT, PID), clear(SLOT)

The generation's writes: a slot for a worker about to be forked (state
C<starting>), its pid once forked, and a free slot after it was reaped.

=back

=head1 FILE LAYOUT

Native byte order and alignment. A 64-byte header: the 8 bytes
C<KAMADOSB>, then 32-bit unsigned version (1), number of slots, slot size
(128), header size (64), and the generation's pid (signed). Then the slots, 128
bytes each:

    offset  size
     0      4   pid (signed)
     4      4   generation
     8      4   state: 0 free, 1 starting, 2 idle, 3 reading, 4 app, 5 writing,
                6 draining
    12      4   open connections
    16      8   requests served
    24      8   since: a double, CLOCK_MONOTONIC seconds
    32     96   request line, NUL-terminated

In Perl: C<unpack 'l L L L Q d Z96', $slot>.

=cut
