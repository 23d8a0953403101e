# Defaults are written once, in Kamado::Options' table: the constructors
# take a value not given from there (a changed row changes what they
# use), and the event loop has none of its own (Kamado::Loop->new wants
# every limit; Kamado::Loop->settings fills them in from the table).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test ();    # blib
use Kamado::Options;
use Kamado::Loop ();
use Kamado::Prefork;
use Kamado::Server;
use Kamado::Supervisor;
use Kamado::CGI;
use Kamado::AccessLog;

my ($row) = grep { $_->[0] eq 'workers' } @Kamado::Options::TABLE;
is Kamado::Options::default('workers'), $row->[2], 'default(KEY) is the row\'s';
ok !eval { Kamado::Options::default('no_such_option'); 1 }, 'an unknown key dies';

# each: [option key, what builds the object and reads the value]
my $dir = File::Temp->newdir;
my @cases = (
    [workers            => sub { Kamado::Prefork->new->{workers} }],
    [max_worker_idle    => sub { Kamado::Prefork->new->{max_worker_idle} }],
    [graceful_timeout   => sub { Kamado::Prefork->new->{graceful_timeout} }],
    [max_reqs_per_child => sub { Kamado::Server->new->{max_requests} }],
    [spool_threshold    => sub { Kamado::Server->new->{spool_threshold} }],
    [write_buffer       => sub { Kamado::Server->new->{write_buffer} }],
    [request_timeout    => sub { Kamado::Server->new->{request_timeout} }],
    [load_timeout       => sub { Kamado::Supervisor->new->{load_timeout} }],
    [cgi_timeout        => sub { Kamado::CGI->new(root => "$dir", persistent_dbi => 0)->{timeout} }],
    [dbi_ping_interval  => sub { Kamado::CGI->new(root => "$dir", persistent_dbi => 0)->{dbi_ping} }],
    [header_timeout     => sub { Kamado::Loop->settings->{header_timeout} }],
    [max_request_body   => sub { Kamado::Loop->settings->{max_request_body} }],
);
for my $case (@cases) {
    my ($key, $get) = @$case;
    my ($row) = grep { Kamado::Options::key_of($_->[0]) eq $key } @Kamado::Options::TABLE;
    is $get->(), $row->[2], "$key: the table's default ($row->[2])";
    local $row->[2] = $row->[2] + 7;
    is $get->(), $row->[2], "$key: and the table's when it changes";
}
{
    my ($row) = grep { $_->[0] eq 'access-log-format' } @Kamado::Options::TABLE;
    local $row->[2] = 'common';
    my $by_default = Kamado::AccessLog->new(file => '-')->{format};
    is $by_default, Kamado::AccessLog->new(file => '-', format => 'common')->{format},
        'access-log-format: the table\'s';
}

my $listen = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 5) or die $!;
ok !eval { Kamado::Loop->new([fileno $listen], [{}], {}); 1 }, 'the loop has no defaults: new wants every limit';
like $@, qr/no keepalive_timeout setting/, '(named)';
ok eval { Kamado::Loop->new([fileno $listen], [{}], Kamado::Loop->settings); 1 }, 'settings fills them in' or diag $@;
done_testing;
