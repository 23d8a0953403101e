# kamado asked to listen on an address already in use exits non-zero at
# once with a one-line message naming the address.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::IP;
use Kamado::Test::CLI qw(run_kamado);

my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/app.psgi" or die;
print $fh "sub { [200, [], ['ok']] }\n";
close $fh;

my $taken = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 5) or die "listen: $@";
my $port = $taken->sockport;

for my $args (['--listen', "127.0.0.1:$port"], ['--host', '127.0.0.1', '--port', $port]) {
    subtest "@$args" => sub {
        my $r = run_kamado({ timeout => 6 }, @$args, '--workers', 1, "$dir/app.psgi");
        ok !$r->{timed_out}, 'exits at once';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        like $r->{stderr}, qr/\Akamado: [^\n]*\Q127.0.0.1:$port\E[^\n]*\n\z/, 'one line naming the address';
        unlike $r->{stderr}, qr/accepting connections/, 'nothing was served';
    };
}
ok $taken->opened, 'the port is still ours';
done_testing;
