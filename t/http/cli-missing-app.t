# kamado with an app file that does not exist, does not compile, or does
# not return a code reference exits non-zero at once (without serving)
# with a message naming the file; the default app.psgi is named when no
# app is given.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test::CLI qw(run_kamado);

my $dir = tempdir(CLEANUP => 1);
my %file = (
    'syntax-error.psgi' => "sub { [200, [], ['x']]\n",
    'not-code.psgi'     => "42;\n",
    'dies.psgi'         => "die qq{no database\\n};\n",
);
for my $name (keys %file) {
    open my $fh, '>', "$dir/$name" or die;
    print $fh $file{$name};
    close $fh;
}
mkdir "$dir/empty" or die;
my @listen = ('--listen', '127.0.0.1:0');    # never a real port, should it start

subtest 'missing file' => sub {
    my $r = run_kamado({ timeout => 6 }, @listen, "$dir/nope/app.psgi");
    ok !$r->{timed_out}, 'exits at once';
    isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
    like $r->{stderr}, qr{\Akamado: [^\n]*\Q$dir/nope/app.psgi\E[^\n]*\n\z}, 'one line naming the file';
    is $r->{stdout}, '', 'nothing on stdout';
};

subtest 'no app given, no app.psgi here' => sub {
    my $r = run_kamado({ timeout => 5, cwd => "$dir/empty" }, @listen);
    isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
    like $r->{stderr}, qr{\Akamado: [^\n]*\bapp\.psgi\b[^\n]*\n\z}, 'one line naming app.psgi';
};

for my $name (sort keys %file) {
    subtest $name => sub {
        my $r = run_kamado({ timeout => 6 }, @listen, "$dir/$name");
        ok !$r->{timed_out}, 'exits at once, without serving';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        like $r->{stderr}, qr{\Akamado: [^\n]*\Q$dir/$name\E}, 'the message names the file';
        unlike $r->{stderr}, qr{accepting connections}, 'nothing was served';
    };
}
done_testing;
