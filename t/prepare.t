# What the generation makes before it forks for its workers' loops
# (Kamado::Server->prepare) is what a worker uses, left as it is: a
# worker that remade or changed it would write to pages it shares with
# the generation (bench/RESULTS-engine.md, a worker's private memory).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Hash::Util qw(bucket_ratio);
use Kamado::Listener;
use Kamado::Loop;
use Kamado::Server;

my $listener = Kamado::Listener->bind('127.0.0.1:0');
my %args = (listeners => [$listener]);
Kamado::Server->prepare(%args);

# the empty psgi.input
my $server = Kamado::Server->new(%args, app => sub { [200, [], []] });
my $other = Kamado::Server->new(%args, app => sub { [200, [], []] });
my $empty = Kamado::Server::Input::empty($server);
ok defined fileno $empty, 'the empty input is an open handle';
is Kamado::Server::Input::empty($other), $empty, 'every server takes the one handle prepared before the fork';
close $empty;
my $own = Kamado::Server::Input::empty($server);
ok defined fileno $own, "one an app closed is replaced by an open one";

# the env templates
sub buckets { (bucket_ratio(%{ $_[0] }) =~ m{/(\d+)$})[0] }
my $plain = $listener->env_template;
my $made = buckets($plain);
Kamado::Loop->new([$listener->fd], [$plain], Kamado::Loop->settings);
cmp_ok buckets($plain), '>', $made, 'a new loop gives a template room for the keys of a request';

my $prepared = $listener->env_template;
Kamado::Loop->presize_templates([$prepared]);
my $room = buckets($prepared);
cmp_ok $room, '>=', 40, 'presize_templates gives that room beforehand';
Kamado::Loop->new([$listener->fd], [$prepared], Kamado::Loop->settings);
is buckets($prepared), $room, 'then a new loop leaves the template as it is';
done_testing;
