# --reload needs a supervisor to start generations: with --workers 0
# kamado refuses at once, with one line naming the option.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(app_file);
use Kamado::Test::CLI qw(run_kamado);

my $app = app_file('sub { [200, [], ["ok"]] }');
my $r = run_kamado({ timeout => 10 }, '--reload', '--workers', 0, '--listen', '127.0.0.1:0', $app);
ok !$r->{timed_out}, 'exits at once';
isnt $r->{status}, 0, 'non-zero exit';
is $r->{stderr}, "kamado: --reload needs --workers 1 or more (it starts new generations, as HUP does)\n", 'one line';
done_testing;
