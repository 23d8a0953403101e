package Kamado::Scoreboard;
use 5.024;
use strict;
use warnings;

use Kamado ();    # the class is in the XS (xs/Scoreboard.xsh, src/board/kd_scoreboard.c)

# Why workers exit, as the generation counts them (the header's exits, by
# index; at most 16).
our @EXITS = qw(max_requests max_age max_rss harakiri request_timeout crash load_failed
    idle ttou graceful_timeout stop);
my %EXIT_INDEX = map { ($EXITS[$_] => $_) } 0 .. $#EXITS;

sub exit_index { $EXIT_INDEX{ $_[1] } // $EXIT_INDEX{crash} }

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

One anonymous shared mapping (or memfd), made by the generation (or, for
it, by the supervisor) before it forks, with a fixed-size slot per
possible worker. A worker's event loop (C) writes its own slot with
plain stores, the state last, and keeps its counters there (responses by
status class, durations, bytes) with plain stores too; readers may see a
request line torn while it changes. See L<kamado/SCOREBOARD> for what the fields mean.

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
C<connections>, C<requests>, C<seconds> (in this state), C<request>,
C<request_seconds> (the current or last request's age), C<pool>,
C<private>, C<shared>, C<pss> (bytes) and C<counts>: C<status> (5
classes), C<buckets> (15, not cumulative), C<seconds>, C<bytes_in>,
C<bytes_out>, C<taken>, C<blocked>.

=item info

The header and the board's totals (the reaped workers' counters and
every slot's): C<generation>, C<generation_pid>, C<started>, C<pools>,
C<exits> (by index into C<@EXITS>), C<totals> (counts as in C<slots>,
with C<queued>, each pool's queue depth).

=item bounds

The upper bounds of the duration buckets, in seconds (C<+Inf> not
included); a class method.

=item new_shared(SLOTS), fd, attach_fd(FD), send_fd(SOCK, MSG, FD), recv_fd(SOCK)

A board in a memfd and its descriptor; a memfd mapped read-only; a
message (and a descriptor, or -1) sent over a C<SOCK_SEQPACKET> socket
without waiting, and one received (C<(MSG, FD)>, or empty with C<$!>):
how the supervisor shows its generations' boards to the status process
(L<Kamado::Status>).

=item set_generation(NUMBER, POOLS), count_exit(INDEX), read_memory(SLOT, PID)

The generation's writes to the header, and a worker's memory from
F</proc/PID/smaps_rollup> into its slot. C<< Kamado::Scoreboard->exit_index(CAUSE) >>
gives the index of a cause in C<@Kamado::Scoreboard::EXITS>.

=item size, generation_pid

The number of slots; the pid of the process that made the scoreboard:
the generation process whose workers these are (under kamado, its
parent is the supervisor to signal). A new generation (HUP) makes a new
scoreboard, published over a B<--scoreboard> file.

=item claim(SLOT, GENERATION, POOL), set_pid(SLOT, PID), clear(SLOT)

The generation's writes: a slot for a worker about to be forked (state
C<starting>), its pid once forked, and a free slot after it was reaped
(its counters added to the header's).

=back

=head1 FILE LAYOUT

Native byte order and alignment. A 1024-byte header:

    offset  size
     0      8   "KAMADOSB"
     8      4   version (3)
    12      4   number of slots
    16      4   slot size (640)
    20      4   header size (1024)
    24      4   the generation's pid (signed)
    28      4   the generation's number
    32      8   when it started: a double, CLOCK_REALTIME seconds
    40      4   pools, the default one included
    48    128   16 x u64: workers exited, by cause (@EXITS order)
   176    448   the reaped workers' counters (below)

Then the slots, 640 bytes each:

    offset  size
     0      4   pid (signed)
     4      4   generation
     8      4   state: 0 free, 1 starting, 2 idle, 3 reading, 4 app, 5 writing,
                6 draining
    12      4   open connections
    16      8   requests served
    24      8   since: a double, CLOCK_MONOTONIC seconds
    32     96   request line, NUL-terminated
   128      8   when the current request began: a double, CLOCK_MONOTONIC
   136      4   the pool it serves (0: the default one)
   140      4   requests being served (streams: more than one in an async worker)
   144      8   private memory, bytes
   152      8   shared memory, bytes
   160      8   Pss, bytes
   168    456   counters

Counters (456 bytes), in a slot and the header alike: 5 x u64 responses
by status class (1xx to 5xx); 15 x u64 requests by duration, not
cumulative, up to 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
2.5, 5, 10, 30, 60 s and beyond; a double, the durations' sum; u64 bytes
in, bytes out, connections taken from its pool's queue; 32 x i64, each
pool's queue: +1 for a connection handed to it, -1 for one taken; u64
times an async worker's loop was held half a second or more.

In Perl: C<unpack 'l L L L Q d Z96 d L L Q3 Q5 Q15 d Q3 q32 Q', $slot>.

=cut
