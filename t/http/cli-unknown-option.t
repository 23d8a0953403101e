# kamado with an unknown option exits non-zero at once with a one-line
# message on stderr that names the option, and prints nothing on stdout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::CLI qw(run_kamado);

for my $case (['--no-such-option', 'no-such-option'], ['-Z', 'Z'], ['--worker=2', 'worker'], ['--Workers=2', 'Workers']) {
    my ($arg, $name) = @$case;
    subtest $arg => sub {
        my $r = run_kamado({ timeout => 6 }, $arg, '--listen', '127.0.0.1:0', 'app.psgi');
        ok !$r->{timed_out}, 'exits at once';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        like $r->{stderr}, qr/\Akamado: [^\n]*\b\Q$name\E\b[^\n]*\n\z/, 'one line naming the option';
        is $r->{stdout}, '', 'nothing on stdout';
    };
}
done_testing;
