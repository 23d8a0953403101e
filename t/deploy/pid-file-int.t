# --pid-file is removed when kamado stops on INT (Ctrl-C) too.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);

my $dir = File::Temp->newdir;
my $file = "$dir/kamado.pid";
my $server = start_server(app => 'sub { [200, [], ["ok"]] }', args => ['--pid-file', $file]);
ok -e $file, 'the file is there while kamado serves';
is $server->stop('INT'), 0, 'INT: exit 0';
ok !-e $file, 'the file is removed';
done_testing;
