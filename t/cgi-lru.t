# Kamado::CGI::LRU, the one least-recently-used cache of the CGI runner
# (fork mode's zygotes, registry's compiled scripts): what goes when it
# is full, and that the owner hears of it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test ();    # blib
use Kamado::CGI::LRU;

my @evicted;
my $lru = Kamado::CGI::LRU->new(max => 3, evict => sub { push @evicted, "@_" });
is $lru->set($_, "v$_"), "v$_", "set $_ returns its value" for qw(a b c);
is $lru->count, 3, 'three kept';
ok $lru->full, 'full at max';
is $lru->get('a'), 'va', 'get a';
$lru->set('d', 'vd');
is_deeply \@evicted, ['b vb'], 'a new key in a full cache: the least recently used (b, as a was read) evicted';
is $lru->get('b'), undef, 'b is gone';
is $lru->count, 3, 'still three';

is $lru->peek('c'), 'vc', 'peek c';
$lru->set('e', 've');
is_deeply \@evicted, ['b vb', 'c vc'], 'peek did not make c recent: c went next';

@evicted = ();
$lru->set('a', 'va2');
is_deeply \@evicted, [], 'a key kept already is replaced: nothing evicted';
is $lru->get('a'), 'va2', 'the new value';

is $lru->remove('d'), 'vd', 'remove gives the value';
is_deeply \@evicted, [], 'remove does not call evict';
is $lru->count, 2, 'two kept after remove';
ok !$lru->full, 'not full';
is $lru->remove('nothing'), undef, 'remove of a key not kept: undef';

# make_room: the oldest goes before the new one is made
$lru->set('f', 'vf');
ok $lru->full, 'full again (e a f)';
$lru->make_room;
is_deeply \@evicted, ['e ve'], 'make_room on a full cache evicts the least recently used';
is $lru->count, 2, 'room for one';
$lru->set('g', 'vg');
is_deeply \@evicted, ['e ve'], 'and set then evicts nothing more';

# without evict: entries just go
my $plain = Kamado::CGI::LRU->new(max => 1);
$plain->set(x => 1);
$plain->set(y => 2);
is_deeply [$plain->peek('x'), $plain->peek('y')], [undef, 2], 'max 1, no evict callback';
is $plain->max, 1, 'max';
is $plain->max(2), $plain, 'max(N) returns the cache';
$plain->set(z => 3);
is_deeply [$plain->peek('y'), $plain->peek('z'), $plain->count], [2, 3, 2], 'max(2): two kept from then on';

ok !eval { Kamado::CGI::LRU->new(max => 0); 1 }, 'max 0 refused';
like $@, qr/max is a count/, 'with a message naming max';
ok !eval { Kamado::CGI::LRU->new; 1 }, 'no max refused';

done_testing;
