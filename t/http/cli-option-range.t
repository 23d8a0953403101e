# A numeric option outside its range (lib/Kamado/Options.pm @TABLE) makes
# kamado exit non-zero at once with one line naming the option and the
# range, before it binds anything: the --listen port is held by the test,
# so a server that tried to bind first would report that instead. Each of
# these values used to start a server that misbehaved: one connection and
# no more (--max-connections 0 or 2^31), one request per connection
# (--max-keepalive-reqs 2^31), a 500 for every request
# (--request-timeout 1e308), an internal scoreboard error (--workers).
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

for my $case (
    ['max-connections',    '0',          'an integer from 1 to 1048576'],
    ['max-connections',    '2147483648', 'an integer from 1 to 1048576'],
    ['max-keepalive-reqs', '2147483648', 'an integer from 1 to 2147483647'],
    ['max-keepalive-reqs', '0',          'an integer from 1 to 2147483647'],
    ['request-timeout',    '1e308',      'a number from 0 to 86400'],
    ['header-timeout',     '0',          'a number from 0.001 to 86400'],
    ['keepalive-timeout',  '-1',         'a number from 0 to 86400'],
    ['workers',            '1e20',       'an integer from 0 to 4096'],
    ['workers',            '100000',     'an integer from 0 to 4096'],
    ['max-request-body',   '1e30',       'an integer from 0 to 9007199254740992'],
    ['port',               '70000',      'an integer from 0 to 65535'],
) {
    my ($name, $value, $range) = @$case;
    subtest "--$name $value" => sub {
        # (the last --workers wins)
        my $r = run_kamado({ timeout => 6 }, '--workers', 1, '--listen', "127.0.0.1:$port", "--$name", $value, "$dir/app.psgi");
        ok !$r->{timed_out}, 'exits at once, without serving';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        is $r->{stderr}, "kamado: --$name must be $range, not '$value'\n", 'one line naming the option and the range';
        is $r->{stdout}, '', 'nothing on stdout';
    };
}
ok $taken->opened, 'the port is still ours';
done_testing;
