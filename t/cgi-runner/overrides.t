# The in-process modes override require, do, exit, caller and exec for the
# code compiled after Kamado::CGI::InProcess::Run loads (at startup when an
# in-process mode is the default, else when a script first runs in one). Outside a script's run they must be perl's own:
# code a PSGI app compiles later must not see a difference.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::CGI::InProcess::Run;

my $dir = File::Temp::tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/lib.pl" or die;
print $fh "sub lib_hello { 'hello' }\n\$loaded++;\n1;\n";
close $fh;

# (compiled now: after the overrides, as an app's lazily loaded code is)
my $code = <<"PERL";
package Some::App;
sub load_with_do { do '$dir/lib.pl' }
sub load_with_require { require '$dir/lib.pl' }
sub who { return (caller(0))[3] . ' from line ' . (caller(0))[2] }
sub outer { return who() }
sub missing {
#line 42 "app.psgi"
    require No::Such::Module;
}
1;
PERL
eval $code or die $@;

ok Some::App::load_with_do(), 'do of a file';
ok defined &Some::App::lib_hello && !defined &Kamado::CGI::InProcess::Require::lib_hello,
    "a package-less file lands in the caller's package, as without the override";
is $Some::App::loaded, 1, 'its top level ran once';
ok Some::App::load_with_require(), 'require of the same file';
is $Some::App::loaded, 1, 'does not run it again: do put it in %INC, as perl does';
like Some::App::outer(), qr/\ASome::App::who from line \d+\z/, 'caller: the frames are perl\'s';
eval { Some::App::missing() };
like $@, qr/\ACan't locate No\/Such\/Module\.pm in \@INC.* at app\.psgi line 42\.\n\z/s,
    "a missing module: perl's message, at the caller's line";

my $pid = fork // die;
if (!$pid) { eval q{exit 3}; POSIX::_exit(99) }
waitpid $pid, 0;
is $? >> 8, 3, 'exit outside a script: the process exits';
$pid = fork // die;
if (!$pid) { eval q{exec 'sh', '-c', 'exit 4'}; POSIX::_exit(99) }
waitpid $pid, 0;
is $? >> 8, 4, 'exec outside a script: the process is replaced';
done_testing;
