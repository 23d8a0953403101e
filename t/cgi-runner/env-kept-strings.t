# In the in-process modes the C environment of a run is built from strings
# kept from one run to the next: whatever a script did to %ENV (set a
# variable to another value of the same length, delete one, add one, clear
# them all), the next run's C environment, as a child process sees it, is
# its own request's, the same as its %ENV.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::CGI qw(put_script);
use Kamado::Test::HTTP qw(parse_response);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'env.cgi', <<'CGI');
#!/usr/bin/perl
print "Content-Type: text/plain\n\n";
my $mine = join '', map {"$_=$ENV{$_}\n"} sort keys %ENV;
open my $p, '-|', $^X, '-e', 'print map {"$_=$ENV{$_}\n"} sort keys %ENV' or die $!;
my $child = join '', <$p>;
print $mine eq $child ? "same\n" : "differ\n--\n$mine--\n$child";
print "X=$ENV{HTTP_X_TEST}\nQ=$ENV{QUERY_STRING}\nNEW=", $ENV{NEW_ONE} // 'none', "\n";
my $op = $ENV{QUERY_STRING};
if ($op eq 'same-length') { $ENV{HTTP_X_TEST} =~ tr/a-z/A-Z/; $ENV{QUERY_STRING} = 'SAME-LENGTH' }
elsif ($op eq 'delete') { delete @ENV{qw(HTTP_X_TEST REQUEST_URI SERVER_NAME)} }
elsif ($op eq 'add') { $ENV{NEW_ONE} = 'x' x 100; $ENV{"NEW_$_"} = $_ for 1 .. 40 }
elsif ($op eq 'clear') { %ENV = (); $ENV{NEW_ONE} = 'after clear' }
CGI

for my $mode (qw(registry perlrun)) {
    subtest $mode => sub {
        my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
        my @asks = (
            [abcd => ''], [abcd => 'same-length'], [abcd => ''], [efgh => 'delete'], [efgh => ''],
            [abcd => 'add'], [abcd => ''], [longer_value => 'clear'], [abcd => 'x'], [abcd => 'same-length'],
            [abce => 'same-lengti'], [abcd => ''],
        );
        for my $ask (@asks) {
            my ($x, $q) = @$ask;
            my $raw = raw_request(
                $server,
                "GET /cgi-bin/env.cgi?$q HTTP/1.1\r\nHost: x\r\nX-Test: $x\r\nConnection: close\r\n\r\n"
            );
            my $res = parse_response($raw) // { status => 0, body => '' };
            is $res->{body}, "same\nX=$x\nQ=$q\nNEW=none\n",
                "X-Test $x, ?$q: the C environment is %ENV, this request's";
        }
    };
}
done_testing;
