# The option table: parsing, aliases, defaults, errors, plackup's spelling,
# and the POD of script/kamado documenting every option.
use strict;
use warnings;
use Test::More;
use Kamado::Options;

my $defaults = Kamado::Options::defaults();
is_deeply(Kamado::Options->parse_argv(), $defaults, 'no options: the defaults');
is $defaults->{workers}, 4, 'default workers';
is $defaults->{keepalive_timeout}, 75, 'keep-alive outlasts the 60 s of proxies';
is $defaults->{preload}, 1, 'preload by default';

my @cases = (
    [[qw(--workers 8 app.psgi)],            {workers => 8, app => 'app.psgi'}],
    [[qw(--max-workers 3)],                 {max_workers => 3}],
    [[qw(--min-workers 2 --max-workers 5 --max-worker-idle 0.5)], {min_workers => 2, max_workers => 5, max_worker_idle => 0.5}],
    [[qw(--scoreboard /tmp/sb)],            {scoreboard => '/tmp/sb'}],
    [[qw(--listen :8080 --listen /tmp/s)],  {listen => [':8080', '/tmp/s']}],
    [[qw(-l :1 -o ::1 -p 9)],               {listen => [':1'], host => '::1', port => 9}],
    [[qw(--no-preload)],                    {preload => 0}],
    [[qw(-I lib -I local -M Foo -E dev)],   {include => [qw(lib local)], module => ['Foo'], env => 'dev'}],
    [[qw(--keepalive-timeout 1.5 --max-keepalive-reqs 7)], {keepalive_timeout => 1.5, max_keepalive_reqs => 7}],
    [[qw(--max-reqs-per-child 100 --spool-threshold 10)],  {max_reqs_per_child => 100, spool_threshold => 10}],
    [[qw(-a x.psgi)],                       {app => 'x.psgi'}],
    [['--pool', 'ai:/ai/', '--pool', 'slow:/s/x,timeout=2.5,workers=3'],
        {pool => [{name => 'ai', prefix => '/ai/', workers => 1, timeout => undef},
                  {name => 'slow', prefix => '/s/x', workers => 3, timeout => 2.5}]}],
);
for my $case (@cases) {
    my ($argv, $want) = @$case;
    is_deeply(Kamado::Options->parse_argv(@$argv), {%$defaults, %$want}, "@$argv");
}

for my $bad (
    [[qw(--no-such-option)],      qr/^kamado: Unknown option: no-such-option \(see kamado --help\)$/],
    [[qw(--workers many)],        qr/^kamado: Value "many" invalid for option workers/],
    [[qw(a.psgi b.psgi)],         qr/^kamado: more than one app given: a.psgi b.psgi$/],
    [[qw(--work 3)],              qr/Unknown option: work/],    # no abbreviations
) {
    my ($argv, $re) = @$bad;
    eval { Kamado::Options->parse_argv(@$argv) };
    like $@, $re, "error for @$argv";
    unlike $@, qr/\n./, 'one line';
}

is_deeply(Kamado::Options->from_handler_args(max_workers => 2, 'keepalive-timeout' => 3, port => 80, host => 'h', foo => 1),
    {%$defaults, max_workers => 2, keepalive_timeout => 3, port => 80, host => 'h'},
    'plackup -s Kamado: dashes, unknown keys dropped');

# autoscaling bounds: either option turns it on, the other has a default
require Kamado::Runner;
for my $case (
    [{},                                  []],
    [{max_workers => 3},                  [1, 3]],
    [{min_workers => 2},                  [2, 4]],
    [{min_workers => 6},                  [6, 6]],
    [{min_workers => 2, max_workers => 2}, [2, 2]],
) {
    my ($opt, $want) = @$case;
    is_deeply([Kamado::Runner->worker_bounds({%$defaults, %$opt})], $want,
        'bounds for ' . join(' ', map { "$_=$opt->{$_}" } sort keys %$opt));
}
eval { Kamado::Runner->worker_bounds({%$defaults, min_workers => 3, max_workers => 2}) };
like $@, qr/^kamado: --min-workers \(3\) is more than --max-workers \(2\)$/, 'min above max';
eval { Kamado::Runner->worker_bounds({%$defaults, min_workers => 0, max_workers => 2}) };
like $@, qr/^kamado: --min-workers must be 1 or more/, 'min 0';

open my $fh, '<', 'script/kamado' or die $!;
my $pod = do { local $/; <$fh> };
for my $name (Kamado::Options::names()) {
    my $flag = length $name == 1 ? "-$name" : "--$name";
    like $pod, qr/^=item B<\Q$flag\E>/m, "the POD documents $flag";
}
done_testing;
