# An option with a missing or invalid value makes kamado exit non-zero at
# once with a one-line message naming the option (or the bad address),
# before it serves anything: including a negative --workers, which would
# otherwise leave a server that accepts connections and never answers;
# autoscaling bounds the wrong way round; a scoreboard file that cannot be
# created; a log level or syslog facility that does not exist.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test::CLI qw(run_kamado);

my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/app.psgi" or die;
print $fh "sub { [200, [], ['ok']] }\n";
close $fh;

for my $case (
    [['--workers', 'abc'], qr/\bworkers\b/],
    [['LAST', '--listen'], qr/\blisten\b/],    # the value is missing: nothing after it
    [['--listen', 'nonsense'], qr/'nonsense'/],
    [['--port', '80x'], qr/\bport\b/],
    [['--workers', '-1', '--listen', '127.0.0.1:0'], qr/\bworkers\b/],
    [['--min-workers', '3', '--max-workers', '2', '--listen', '127.0.0.1:0'], qr/--min-workers \(3\) is more than --max-workers \(2\)/],
    [['--min-workers', '0', '--max-workers', '2', '--listen', '127.0.0.1:0'], qr/--min-workers must be an integer from 1 to 4096, not '0'/],
    [['--scoreboard', "$dir/no/such/dir/sb", '--listen', '127.0.0.1:0'], qr/scoreboard .*: No such file/],
    [['--pool', 'ai', '--listen', '127.0.0.1:0'], qr/--pool 'ai'/],
    [['--cgi-bin', "$dir/no/such", '--listen', '127.0.0.1:0'], qr{--cgi-bin \S+/no/such: '\S+/no/such' is not a directory}],
    [['--cgi-docroot', "/site=$dir/no/such", '--listen', '127.0.0.1:0'], qr{--cgi-docroot /site=\S+/no/such: '\S+/no/such' is not a directory}],
    [['--cgi-docroot', $dir, '--listen', '127.0.0.1:0'], qr{--cgi-docroot at / and a PSGI app: give the document root a /PREFIX}],
    [['--cgi-docroot', "/x=$dir", '--cgi-bin', "/x=$dir", '--listen', '127.0.0.1:0'], qr{--cgi-docroot /x=\S+: /x is mounted twice}],
    [['--cgi-bin', $dir, '--cgi-mode', 'fastest', '--listen', '127.0.0.1:0'], qr/--cgi-mode must be one of auto fork exec registry perlrun, not 'fastest'/],
    [['--cgi-bin', $dir, '--cgi-ext', '.cgi', '--listen', '127.0.0.1:0'], qr/--cgi-ext \.cgi: a comma list of extensions without dots/],
    [['--pool', 'ai:ai/', '--listen', '127.0.0.1:0'], qr/--pool 'ai:ai\/'.*start with \//],
    [['--pool', 'ai:/ai/,workers=0', '--listen', '127.0.0.1:0'], qr/--pool .*workers=0/],
    [['--pool', 'ai:/ai/,size=3', '--listen', '127.0.0.1:0'], qr/--pool .*size=3/],
    [['--pool', 'a:/ai/', '--pool', 'b:/ai/', '--listen', '127.0.0.1:0'], qr/--pool .*given twice/],
    [['--pool', 'ai:/ai/', '--workers', '0', '--listen', '127.0.0.1:0'], qr/--pool needs --workers/],
    [['--log-level', 'loud', '--listen', '127.0.0.1:0'], qr/--log-level must be one of error warn notice info debug, not 'loud'/],
    [['--error-log', 'syslog:nowhere', '--listen', '127.0.0.1:0'], qr/--error-log syslog:nowhere: the facility must be one of auth .* local7$/m],
) {
    my ($args, $names) = @$case;
    subtest join(' ', grep { $_ ne 'LAST' } @$args) => sub {
        my @argv = $args->[0] eq 'LAST' ? ("$dir/app.psgi", @$args[1 .. $#$args]) : (@$args, "$dir/app.psgi");
        my $r = run_kamado({ timeout => 6 }, @argv);
        ok !$r->{timed_out}, 'exits at once, without serving';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        like $r->{stderr}, qr/\Akamado: [^\n]*\n\z/, 'one line on stderr';
        like $r->{stderr}, $names, 'naming what is wrong';
        is $r->{stdout}, '', 'nothing on stdout';
    };
}
done_testing;
