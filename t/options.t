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
        {pool => [{name => 'ai', prefix => '/ai/', workers => 1, timeout => undef, async => 0, streams => undef},
                  {name => 'slow', prefix => '/s/x', workers => 3, timeout => 2.5, async => 0, streams => undef}]}],
    [['--pool', 'ai:/ai/,async', '--pool', 'chat:/chat/,workers=2,async,streams=5000'],
        {pool => [{name => 'ai', prefix => '/ai/', workers => 1, timeout => undef, async => 1, streams => undef},
                  {name => 'chat', prefix => '/chat/', workers => 2, timeout => undef, async => 1, streams => 5000}]}],
    [[qw(--async --streams 20 --stream-heartbeat 15)], {async => 1, streams => 20, stream_heartbeat => 15}],
);
for my $case (@cases) {
    my ($argv, $want) = @$case;
    is_deeply(Kamado::Options->parse_argv(@$argv), {%$defaults, %$want}, "@$argv");
}

for my $bad (
    [[qw(--no-such-option)],      qr/^kamado: Unknown option: no-such-option \(see kamado --help\)$/],
    [[qw(--workers many)],        qr/^kamado: --workers must be an integer from 0 to 4096, not 'many'$/],
    [[qw(a.psgi b.psgi)],         qr/^kamado: more than one app given: a.psgi b.psgi$/],
    [[qw(--work 3)],              qr/Unknown option: work/],    # no abbreviations
) {
    my ($argv, $re) = @$bad;
    eval { Kamado::Options->parse_argv(@$argv) };
    like $@, $re, "error for @$argv";
    unlike $@, qr/\n./, 'one line';
}

# every numeric option has a range, enforced the same way from the command
# line and from plackup's handler arguments
for my $row (@Kamado::Options::TABLE) {
    my $name = (split /\|/, $row->[0])[0];
    if ($row->[1] !~ /^=[if]\z/) {
        ok !defined $row->[4], "--$name is not numeric: no range";
        next;
    }
    my ($min, $max) = ($row->[4] // [])->@*;
    ok defined $min && defined $max && $min <= $max, "--$name has a range" or next;
    my $key = Kamado::Options::key_of($row->[0]);
    my $range = qr/^kamado: --\Q$name\E must be an? (?:integer|number) from \Q$min\E to \Q$max\E, not '[^']*'$/;
    my @bad = ($min - 1, $max + 1, 'x', '');
    push @bad, $row->[1] eq '=i' ? ('1.5', ($max < 2147483648 ? '2147483648' : ())) : ('1e308', '-1e308', 'inf', 'nan', ($min > 0 ? '1e-400' : ()));
    for my $value (@bad) {
        for my $via ([parse_argv => sub { Kamado::Options->parse_argv("--$name", $value) }],
                     [from_handler_args => sub { Kamado::Options->from_handler_args($key => $value) }]) {
            eval { $via->[1]->() };
            like $@, $range, "$via->[0]: --$name '$value' is refused naming the range";
        }
    }
    for my $value ($min, $max) {
        is eval { Kamado::Options->parse_argv("--$name", $value) }->{$key}, $value, "--$name $value (an end of the range) is taken"
            or diag $@;
        is eval { Kamado::Options->from_handler_args($key => $value) }->{$key}, $value, "plackup: $key $value is taken"
            or diag $@;
    }
}

{
    # (the warning is a log line: STDERR is caught)
    open my $saved, '>&', \*STDERR or die;
    close STDERR;
    open STDERR, '>', \my $err or die;
    my $opt = Kamado::Options->from_handler_args(max_workers => 2, 'keepalive-timeout' => 3, port => 80, host => 'h', 'wrokers' => 1);
    close STDERR;
    open STDERR, '>&', $saved or die;
    is_deeply($opt, {%$defaults, max_workers => 2, keepalive_timeout => 3, port => 80, host => 'h'},
        'plackup -s Kamado: dashes, unknown keys dropped');
    like $err, qr/\A\S+ \[warn\] supervisor $$: ignoring 'wrokers', not an option of Kamado \(see kamado --help\)\n\z/,
        'with one line naming each';
}

# plackup (Plack::Runner) sends listen with host, port and socket derived
# from it: listen alone is bound, in Kamado's spelling
is_deeply(Kamado::Options->from_handler_args(host => undef, port => 5000, listen => [':5000'], socket => undef),
    {%$defaults, listen => [':5000']}, 'plackup --port: listen only');
is_deeply(Kamado::Options->from_handler_args(listen => ['::1:80', 'h:81', 'a.sock', '/run/b.sock'], host => '::1', port => 80, socket => 'a.sock'),
    {%$defaults, listen => ['[::1]:80', 'h:81', 'unix:a.sock', '/run/b.sock']}, "plackup's IPv6 host:port and socket names");
is_deeply(Kamado::Options->from_handler_args(socket => '/run/s'), {%$defaults, socket => '/run/s'}, 'socket without listen');
is_deeply(Kamado::Options->from_handler_args(cgi_bin => '/a=x', 'cgi-bin' => '/b=y', cgi_env => ['P', 'Q=1'], workers => 1, workers => 2),
    {%$defaults, cgi_bin => ['/a=x', '/b=y'], cgi_env => ['P', 'Q=1'], workers => 2},
    'a repeated pair adds to a repeatable option, replaces another');

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
for my $spec ('ai:/ai/,workers=4097', 'ai:/ai/,workers=0', 'ai:/ai/,timeout=86401', 'ai:/ai/,timeout=1e308') {
    eval { Kamado::Options->parse_argv('--pool', $spec) };
    like $@, qr/^kamado: --pool '\Q$spec\E': '[^']+' is not workers=N \(1 to 4096\), timeout=SECONDS \(0 to 86400\), async or streams=N \(1 to 1048576\)/,
        "--pool $spec: out of the ranges of --workers and --request-timeout";
}
eval { Kamado::Options->parse_argv('--pool', 'ai:/ai/,streams=10') };
like $@, qr/^kamado: --pool 'ai:\/ai\/,streams=10': streams=N is for an async pool/, 'streams=N without async';
is_deeply(Kamado::Options->parse_argv('--pool', 'ai:/ai/,workers=4096,timeout=86400')->{pool},
    [{name => 'ai', prefix => '/ai/', workers => 4096, timeout => 86400, async => 0, streams => undef}], '--pool at the ends of the ranges');

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
for my $row (grep { $_->[4] } @Kamado::Options::TABLE) {
    my $name = (split /\|/, $row->[0])[0];
    like $pod, qr/^=item B<--\Q$name\E>[^\n]* \(\Q$row->[4][0]\E to \Q$row->[4][1]\E\)$/m, "the POD gives the range of --$name";
}
done_testing;
