# Workers are forked from a template process (Kamado::Prefork::Template)
# and are the generation's children all the same: a worker's parent is
# the generation, a killed worker is reaped and replaced from the
# template, USR1 reaches the template so that a worker forked after a
# logrotate writes to the new files, a template that dies is replaced by
# forking from the generation, and nothing is left once kamado stops.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually wait_until);
use Kamado::Test::HTTP qw(slurp);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $dir = File::Temp::tempdir(CLEANUP => 1);
my ($error_log, $access_log) = ("$dir/error.log", "$dir/access.log");
my $server = start_server(
    workers => 2, no_wait => 1,
    args => ['--error-log', $error_log, '--access-log', $access_log],
    app  => 'sub { [200, ["Content-Type" => "text/plain"], [$$ . " " . getppid]] }'
);
wait_until { (slurp($error_log) // '') =~ /accepting connections/ } 'kamado serves';

sub ppid_of { ((slurp("/proc/$_[0]/stat") // '') =~ /\A\d+ \(.*\) \S (\d+)/s)[0] // 0 }

sub get {
    my $res = read_response($server->send_get($_[0] // '/'));
    return $res && $res->{status} == 200 ? split ' ', $res->{body} : ();
}

my ($generation) = $server->generations;
my @templates = $server->templates;
is scalar @templates, 1, 'one template under the generation';
my $template = $templates[0];
ok eventually(sub { $server->workers == 2 }), 'and two workers';
is_deeply [map { ppid_of($_) } $server->workers], [$generation, $generation], "each a child of the generation";
my ($pid, $ppid) = get();
ok $pid, 'a request is served';
is $ppid, $generation, "the worker's getppid is the generation";

my @before = sort $server->workers;
kill KILL => $before[0];
ok eventually(sub {
    my %w = map { $_ => 1 } $server->workers;
    keys %w == 2 && !$w{ $before[0] };
    }),
    'a worker killed is replaced';
my ($new) = grep { $_ != $before[1] } $server->workers;
is ppid_of($new), $generation, 'by a child of the generation';
is_deeply [$server->templates], [$template], 'forked by the same template';

# logrotate: the template reopens the logs with the others, so a worker
# forked after it writes to the new files
rename $_, "$_.1" or die for $error_log, $access_log;
kill USR1 => $server->pid;
wait_until { (slurp($error_log) // '') =~ /USR1: reopened/ } 'USR1: the logs are reopened';
sub fd_of { readlink "/proc/$_[0]/fd/$_[1]" // '' }
wait_until { fd_of($template, 2) eq $error_log } 'by the template too';
my @now = $server->workers;
kill KILL => $_ for @now;
ok eventually(sub {
    my %w = map { $_ => 1 } $server->workers;
    keys %w == 2 && !grep { $w{$_} } @now;
    }),
    'workers forked after the logrotate';
is fd_of($_, 2), $error_log, "worker $_ writes its errors to the new file" for $server->workers;
my %served;
for (1 .. 20) { my ($p) = get("/after$_"); $served{$p}++ if $p }
ok eventually(sub { (() = (slurp($access_log) // '') =~ m{GET /after\d+ }g) == 20 }),
    'their access lines go to the new access log' or diag slurp($access_log);
unlike slurp("$access_log.1") // '', qr{GET /after}, 'none to the old one';

# a template that dies: the generation forks its workers itself
kill KILL => $template;
ok eventually(sub { !$server->templates }), 'the template is gone';
my @left = $server->workers;
kill KILL => $left[0];
ok eventually(sub {
    my %w = map { $_ => 1 } $server->workers;
    keys %w == 2 && !$w{ $left[0] };
    }),
    'a worker is still replaced';
like slurp($error_log), qr/\[error\] generation \d+: the worker template exited: workers are forked by the generation/,
    'and the log says the generation forks them';
ok get(), 'and serves';

my @all = ($server->generations, $server->workers);
is $server->stop, 0, 'TERM: exit 0';
ok !grep({ -e "/proc/$_" && (slurp("/proc/$_/stat") // '') !~ /\) Z /s } @all, @templates),
    'no process is left';
done_testing;
